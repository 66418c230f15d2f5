/**
 * Resolving a call against its catalog entry, after ZetaSQL's function resolver: each signature
 * is tried with BigQuery's coercions (coercion.ts), the cheapest match wins, and a call that
 * matches none is refused in BigQuery's words, naming the supported signatures.
 */

import { type SqlType, UNKNOWN, describeType } from '../catalog.ts';
import type * as ir from '../ir.ts';
import { type ArgumentType, castCost, coercionCost, sameType, supertype } from './coercion.ts';
import type { FunctionEntry } from './entry.ts';
import { ENUM_SETS, PART_SETS, type Param, type Signature, type TypePattern, type TypeVariable, describeSignature } from './signature.ts';

/** An argument of a call: its expression (a date part, a literal…) and its type. */
export interface CallArgument {
  expr: ir.Expr;
  type: ArgumentType;
}

export interface ResolvedCall {
  /** Index of the matching signature in the entry. */
  signature: number;
  /** The type each positional argument takes (its own, or the one it is coerced to). */
  args: SqlType[];
  /** The same for named arguments, by name. */
  named: Record<string, SqlType>;
  result: SqlType;
}

export type Resolution = { ok: true; call: ResolvedCall } | { ok: false; message: string };

export function resolveCall(name: string, entry: FunctionEntry, args: readonly CallArgument[], named: ReadonlyMap<string, CallArgument>): Resolution {
  let best: { call: ResolvedCall; cost: number } | undefined;
  // Arguments of unknown type can fit several signatures equally: the result is unknown then.
  // Otherwise the earlier signature wins a tie, as in ZetaSQL, whose later signatures refuse what
  // ties (a string literal fits DATE_TRUNC's DATE, DATETIME and TIMESTAMP forms; it is a DATE).
  const unknownArgument = [...args, ...named.values()].some((arg) => arg.type.type.kind === 'unknown' && arg.type.literal !== 'null' && arg.expr.kind !== 'date_part');
  entry.signatures.forEach((signature, index) => {
    const match = matchSignature(signature, args, named);
    if (!match) return;
    if (!best || match.cost < best.cost) best = { call: { ...match.call, signature: index }, cost: match.cost };
    else if (match.cost === best.cost && unknownArgument && !sameType(match.call.result, best.call.result)) best.call.result = UNKNOWN;
  });
  if (best) return { ok: true, call: best.call };
  return { ok: false, message: notConstant(name, entry, args, named) ?? unsupportedDatePart(name, entry, args, named) ?? noMatchingSignature(name, entry, args, named) };
}

/**
 * BigQuery's refusal of a call that would match but for an argument that must be a literal
 * (a JSONPath): `Argument 2 to JSON_VALUE must be a literal or query parameter`.
 */
function notConstant(name: string, entry: FunctionEntry, args: readonly CallArgument[], named: ReadonlyMap<string, CallArgument>): string | undefined {
  for (const signature of entry.signatures) {
    const relaxed = { ...signature, params: signature.params.map((param) => ({ ...param, constant: false })) };
    if (!matchSignature(relaxed, args, named)) continue;
    const positional = assignPositional(signature.params, args.length) ?? [];
    const index = args.findIndex((arg, position) => positional[position]?.constant && !isConstant(arg.expr));
    if (index >= 0) return `Argument ${index + 1} to ${name.toUpperCase()} must be a literal or query parameter`;
  }
  return undefined;
}

/**
 * `DATE_TRUNC does not support the HOUR date part`, as BigQuery words it, when the call would
 * match a signature but for the date part it names.
 */
function unsupportedDatePart(name: string, entry: FunctionEntry, args: readonly CallArgument[], named: ReadonlyMap<string, CallArgument>): string | undefined {
  const index = args.findIndex((arg) => arg.expr.kind === 'date_part');
  const part = args[index]?.expr;
  if (part?.kind !== 'date_part') return undefined;
  const anyPart = (signature: Signature): Signature => ({
    ...signature,
    params: signature.params.map((param) => (param.type.kind === 'part' ? { ...param, type: { kind: 'part', set: 'ANY_PART' } } : param)),
  });
  if (!entry.signatures.some((signature) => matchSignature(anyPart(signature), args, named))) return undefined;
  const written = part.weekStart ? `WEEK(${part.weekStart.toUpperCase()})` : part.part.toUpperCase();
  return `${name.toUpperCase()} does not support the ${written} date part`;
}

interface Match {
  call: Omit<ResolvedCall, 'signature'>;
  cost: number;
}

/**
 * Which parameter each positional argument fills, or undefined when the count does not fit:
 * required parameters first, then optional ones in order, then repetitions of the repeated
 * parameter (or whole groups of them).
 */
function assignPositional(params: readonly Param[], count: number): Param[] | undefined {
  const positional = params.filter((param) => !param.namedOnly);
  const fixed = positional.filter((param) => !param.repeated);
  const group = positional.filter((param) => param.repeated);
  const required = fixed.filter((param) => !param.optional).length;
  if (count < required) return undefined;
  let spare = count - required;
  const assigned: Param[] = [];
  for (const param of fixed) {
    if (param.optional) {
      if (spare === 0) continue;
      spare--;
    }
    assigned.push(param);
  }
  const rest = count - assigned.length;
  if (rest > 0 && (group.length === 0 || rest % group.length !== 0)) return undefined;
  for (let index = 0; index < rest; index++) assigned.push(group[index % group.length]!);
  return assigned;
}

function matchSignature(signature: Signature, args: readonly CallArgument[], named: ReadonlyMap<string, CallArgument>): Match | undefined {
  const positional = assignPositional(signature.params, args.length);
  if (!positional) return undefined;
  const pairs: Array<{ arg: CallArgument; param: Param }> = args.map((arg, index) => ({ arg, param: positional[index]! }));
  for (const [name, arg] of named) {
    const param = signature.params.find((candidate) => candidate.name === name);
    if (!param || positional.includes(param)) return undefined;
    pairs.push({ arg, param });
  }
  if (pairs.some(({ arg, param }) => !fitsForm(arg, param))) return undefined;

  const bindings = bindVariables(pairs);
  if (!bindings) return undefined;
  let cost = 0;
  const targets: SqlType[] = [];
  for (const { arg, param } of pairs) {
    if (param.type.kind === 'part') {
      targets.push(UNKNOWN);
      continue;
    }
    // ANY takes the argument as it is: renderings see its own type (FORMAT prints by it, TO_JSON encodes by it).
    const target = ownWhereAny(param.type, arg.type.type, instantiate(param.type, bindings));
    const step = coercionCost(arg.type, target) ?? (param.cast ? castCost(arg.type, target) : undefined);
    if (step === undefined) return undefined;
    cost += step;
    targets.push(target);
  }
  const namedTargets: Record<string, SqlType> = {};
  [...named.keys()].forEach((name, index) => (namedTargets[name] = targets[args.length + index]!));
  return { call: { args: targets.slice(0, args.length), named: namedTargets, result: instantiate(signature.result, bindings) }, cost };
}

/** Where the pattern takes any type (`ANY`, `ARRAY<ANY>`), the argument keeps its own: TO_JSON reads it. */
function ownWhereAny(pattern: TypePattern, own: SqlType, target: SqlType): SqlType {
  if (pattern.kind === 'any' || pattern.kind === 'any_struct') return own;
  if (pattern.kind === 'array' && own.kind === 'array' && target.kind === 'array') return { kind: 'array', element: ownWhereAny(pattern.element, own.element, target.element) };
  return target;
}

/** Date parts only where a date part is taken, and the part must be one the signature allows. */
function fitsForm(arg: CallArgument, param: Param): boolean {
  if (param.type.kind === 'part') {
    if (arg.expr.kind !== 'date_part') return false;
    const parts = PART_SETS[param.type.set];
    return parts.has(arg.expr.part) && (arg.expr.weekStart === undefined || parts.has('week'));
  }
  if (arg.expr.kind === 'date_part') return false;
  if (param.type.kind === 'enum') return arg.expr.kind === 'string' && ENUM_SETS[param.type.set].has(arg.expr.value.toUpperCase());
  if (param.type.kind === 'any_struct' && arg.type.type.kind !== 'struct' && arg.type.type.kind !== 'unknown' && arg.type.literal !== 'null') return false;
  return !param.constant || isConstant(arg.expr);
}

function isConstant(expr: ir.Expr): boolean {
  switch (expr.kind) {
    case 'number':
    case 'string':
    case 'bool':
    case 'null':
    case 'typed_literal':
    case 'param':
      return true;
    case 'negate':
    case 'cast':
      return isConstant(expr.expr);
    default:
      return false;
  }
}

type Bindings = Map<TypeVariable, SqlType>;

/** The type each variable (T1, T2) stands for: the supertype of the arguments it appears in. */
function bindVariables(pairs: ReadonlyArray<{ arg: CallArgument; param: Param }>): Bindings | undefined {
  const seen = new Map<TypeVariable, ArgumentType[]>();
  const collect = (pattern: TypePattern, arg: ArgumentType): boolean => {
    if (pattern.kind === 'var') {
      seen.set(pattern.name, [...(seen.get(pattern.name) ?? []), arg]);
      return true;
    }
    if (pattern.kind === 'array') {
      const type = arg.type;
      if (type.kind === 'array') return collect(pattern.element, { type: type.element });
      return type.kind === 'unknown' || arg.literal === 'null' || arg.literal === 'empty_array';
    }
    if (pattern.kind === 'struct' && arg.type.kind === 'struct') {
      const fields = arg.type.fields;
      return fields.length === pattern.fields.length && pattern.fields.every((field, index) => collect(field.type, { type: fields[index]!.type }));
    }
    return true;
  };
  for (const { arg, param } of pairs) if (!collect(param.type, arg.type)) return undefined;
  const bindings: Bindings = new Map();
  for (const [name, types] of seen) {
    const common = supertype(types);
    if (!common) return undefined;
    bindings.set(name, common);
  }
  return bindings;
}

/** A pattern with its variables replaced by what they are bound to (UNKNOWN when unbound). */
export function instantiate(pattern: TypePattern, bindings: ReadonlyMap<TypeVariable, SqlType>): SqlType {
  switch (pattern.kind) {
    case 'scalar':
      return { kind: 'scalar', name: pattern.name };
    case 'array':
      return { kind: 'array', element: instantiate(pattern.element, bindings) };
    case 'struct':
      return { kind: 'struct', fields: pattern.fields.map((field) => ({ name: field.name, type: instantiate(field.type, bindings) })) };
    case 'var':
      return bindings.get(pattern.name) ?? UNKNOWN;
    case 'any':
    case 'any_struct':
    case 'part':
      return UNKNOWN;
    case 'enum':
      return { kind: 'scalar', name: 'STRING' };
  }
}

/** BigQuery's message: `No matching signature for function X for argument types: A, B. Supported signature(s): …`. */
function noMatchingSignature(name: string, entry: FunctionEntry, args: readonly CallArgument[], named: ReadonlyMap<string, CallArgument>): string {
  const upper = name.toUpperCase();
  const types = [...args.map((arg) => describeArgument(arg)), ...[...named].map(([key, arg]) => `${key} => ${describeArgument(arg)}`)];
  const given = types.length === 0 ? 'with no arguments' : `for argument types: ${types.join(', ')}`;
  const supported = entry.signatures.map((signature) => describeSignature(upper, signature));
  return `No matching signature for function ${upper} ${given}. Supported signature${supported.length > 1 ? 's' : ''}: ${supported.join('; ')}`;
}

function describeArgument(arg: CallArgument): string {
  if (arg.expr.kind === 'date_part') return 'DATE_TIME_PART';
  if (arg.type.literal === 'null') return 'NULL';
  return describeType(arg.type.type);
}
