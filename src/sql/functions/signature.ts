/**
 * Function signatures, written as BigQuery's reference and its error messages print them and
 * parsed once at load: `(STRING, STRING, [INT64], [INT64]) -> INT64`. After ZetaSQL's
 * FunctionSignature: each argument has a type (concrete, templated `T1`/`T2`, `ARRAY<T1>`, a
 * date-part keyword set), and may be optional (`[INT64]`), repeated (`STRING...`, or a group
 * repeated together: `(STRING, ANY)...`, JSON_OBJECT's key-value pairs), named (`mode => STRING`,
 * also positional; `=> STRING` after `;` only by name), constant (`CONST INT64`: a literal, as
 * BigQuery requires for APPROX_TOP_COUNT's n) or cast (`CAST STRING`: any value BigQuery can cast to
 * STRING is taken and cast, as CONCAT takes `1923`).
 */

import type { DatePart, ScalarTypeName } from '../ir.ts';

/** A type an argument or result may have; `var` is any type, the same wherever the same name appears. */
export type TypePattern =
  | { kind: 'scalar'; name: ScalarTypeName }
  | { kind: 'array'; element: TypePattern }
  | { kind: 'struct'; fields: ReadonlyArray<{ name: string; type: TypePattern }> }
  | { kind: 'var'; name: TypeVariable }
  /** Any type, not tied to another argument's (FORMAT's values). */
  | { kind: 'any' }
  /** Any STRUCT. */
  | { kind: 'any_struct' }
  /** A date-part keyword (`HOUR`, `WEEK(MONDAY)`) from the named set. */
  | { kind: 'part'; set: PartSet }
  /**
   * One of a fixed set of keywords (NORMALIZE's `NFKC`), written bare or as a string literal;
   * the analyzer passes it on as the string literal of its upper-case name.
   */
  | { kind: 'enum'; set: EnumSet };

export type TypeVariable = 'T1' | 'T2';

export interface Param {
  type: TypePattern;
  optional: boolean;
  /**
   * Zero or more further arguments of this type: the last positional parameter, or the last
   * ones, which then repeat together as a group (`(STRING, ANY)...`).
   */
  repeated: boolean;
  /** A named argument (`name => value`); positional too unless `namedOnly`. */
  name?: string;
  namedOnly: boolean;
  /** Must be a literal (or a query parameter, whose value is known when the query runs). */
  constant: boolean;
  /** Takes any value that casts to its (scalar) type, cast explicitly (CONCAT's arguments). */
  cast?: boolean;
}

export interface Signature {
  params: readonly Param[];
  result: TypePattern;
  /** As written in the catalog, for messages and the docs. */
  text: string;
}

/** Which date-part keywords a signature takes, by BigQuery's rules for each function family. */
export type PartSet = 'DATE_PART' | 'DATETIME_PART' | 'TIME_PART' | 'TIMESTAMP_PART' | 'INTERVAL_PART' | 'ANY_PART';

/** Keyword sets a parameter may take (`NORMALIZE_MODE` is ZetaSQL's NormalizeMode). */
export type EnumSet = 'NORMALIZE_MODE';

export const ENUM_SETS: Record<EnumSet, ReadonlySet<string>> = {
  NORMALIZE_MODE: new Set(['NFC', 'NFKC', 'NFD', 'NFKD']),
};

const TIME_PARTS: DatePart[] = ['microsecond', 'millisecond', 'second', 'minute', 'hour'];
const DATE_PARTS: DatePart[] = ['day', 'week', 'isoweek', 'month', 'quarter', 'year', 'isoyear'];

export const PART_SETS: Record<PartSet, ReadonlySet<DatePart>> = {
  DATE_PART: new Set(DATE_PARTS),
  DATETIME_PART: new Set([...TIME_PARTS, ...DATE_PARTS]),
  TIME_PART: new Set(TIME_PARTS),
  /** TIMESTAMP_TRUNC takes every part of a DATETIME. */
  TIMESTAMP_PART: new Set([...TIME_PARTS, ...DATE_PARTS]),
  /** Fixed-length parts: what TIMESTAMP_ADD/SUB/DIFF count in. */
  INTERVAL_PART: new Set([...TIME_PARTS, 'day']),
  /** Any part at all (the resolver tries it to word a refusal). */
  ANY_PART: new Set<DatePart>([...TIME_PARTS, ...DATE_PARTS, 'dayofweek', 'dayofyear', 'date']),
};

const SCALARS: ReadonlySet<string> = new Set<ScalarTypeName>([
  'INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC', 'STRING', 'BYTES', 'BOOL', 'TIMESTAMP', 'DATETIME', 'DATE', 'TIME', 'JSON', 'INTERVAL',
]);

/** Parse `(…) -> TYPE`; a malformed signature is a programming error, thrown at load. */
export function parseSignature(text: string): Signature {
  const reader = new Reader(text);
  reader.expect('(');
  const params: Param[] = [];
  let namedOnly = false;
  while (!reader.peek(')')) {
    if (reader.take(';')) namedOnly = true;
    else if (params.length > 0) reader.expect(',');
    if (!namedOnly && reader.take('(')) params.push(...readGroup(reader));
    else params.push(readParam(reader, namedOnly));
  }
  reader.expect(')');
  reader.expect('->');
  const result = readType(reader);
  reader.end();
  return { params, result, text };
}

function readParam(reader: Reader, namedOnly: boolean): Param {
  const optional = reader.take('[');
  const constant = reader.takeWord('CONST');
  const cast = reader.takeWord('CAST');
  const name = reader.namedArgument();
  const type = readType(reader);
  const repeated = reader.take('...');
  if (optional) reader.expect(']');
  if (namedOnly && !name) reader.fail('arguments after ";" are named');
  return { type, optional: optional || repeated || namedOnly, repeated, ...(name ? { name } : {}), namedOnly, constant, ...(cast ? { cast } : {}) };
}

/** `(X, Y)...`: parameters repeated together, zero or more times (after its `(`). */
function readGroup(reader: Reader): Param[] {
  const group: Param[] = [];
  do group.push({ ...readParam(reader, false), optional: true, repeated: true });
  while (reader.take(','));
  reader.expect(')');
  reader.expect('...');
  return group;
}

function readType(reader: Reader): TypePattern {
  const word = reader.word();
  if (word === 'T1' || word === 'T2') return { kind: 'var', name: word };
  if (word === 'ANY') return { kind: 'any' };
  if (word === 'STRUCT' && !reader.peek('<')) return { kind: 'any_struct' };
  if (word in PART_SETS) return { kind: 'part', set: word as PartSet };
  if (word in ENUM_SETS) return { kind: 'enum', set: word as EnumSet };
  if (word === 'ARRAY') {
    reader.expect('<');
    const element = readType(reader);
    reader.expect('>');
    return { kind: 'array', element };
  }
  if (word === 'STRUCT') {
    reader.expect('<');
    const fields: Array<{ name: string; type: TypePattern }> = [];
    do fields.push({ name: reader.word().toLowerCase(), type: readType(reader) });
    while (reader.take(','));
    reader.expect('>');
    return { kind: 'struct', fields };
  }
  if (SCALARS.has(word)) return { kind: 'scalar', name: word as ScalarTypeName };
  return reader.fail(`unknown type ${word}`);
}

class Reader {
  private index = 0;
  constructor(private readonly text: string) {}

  private skipSpace(): void {
    while (this.text[this.index] === ' ') this.index++;
  }

  peek(token: string): boolean {
    this.skipSpace();
    return this.text.startsWith(token, this.index);
  }

  take(token: string): boolean {
    if (!this.peek(token)) return false;
    this.index += token.length;
    return true;
  }

  expect(token: string): void {
    if (!this.take(token)) this.fail(`expected "${token}"`);
  }

  word(): string {
    this.skipSpace();
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.index));
    if (!match) return this.fail('expected a name');
    this.index += match[0].length;
    return match[0];
  }

  takeWord(word: string): boolean {
    this.skipSpace();
    if (!new RegExp(`^${word}\\b`).test(this.text.slice(this.index))) return false;
    this.index += word.length;
    return true;
  }

  /** `name =>` before a type, if there is one. */
  namedArgument(): string | undefined {
    this.skipSpace();
    const match = /^([a-z_][a-z0-9_]*)\s*=>/.exec(this.text.slice(this.index));
    if (!match) return undefined;
    this.index += match[0].length;
    return match[1];
  }

  end(): void {
    this.skipSpace();
    if (this.index < this.text.length) this.fail('unexpected text');
  }

  fail(message: string): never {
    throw new Error(`signature ${this.text}: ${message} at ${this.index}`);
  }
}

/**
 * A type as BigQuery prints an argument type in messages (`ANY`, `ARRAY`), or with its template
 * variables (`T1`, `ARRAY<T1>`) as the docs show them.
 */
export function describePattern(type: TypePattern, templates = false): string {
  switch (type.kind) {
    case 'scalar':
      return type.name;
    case 'array':
      return type.element.kind === 'var' && !templates ? 'ARRAY' : `ARRAY<${describePattern(type.element, templates)}>`;
    case 'struct':
      return `STRUCT<${type.fields.map((field) => `${field.name} ${describePattern(field.type, templates)}`).join(', ')}>`;
    case 'var':
      return templates ? type.name : 'ANY';
    case 'any':
      return 'ANY';
    case 'any_struct':
      return 'STRUCT';
    case 'part':
      return 'DATE_TIME_PART';
    case 'enum':
      return type.set;
  }
}

/** `INSTR(STRING, STRING, [INT64], [INT64])`, as BigQuery lists a supported signature. */
export function describeSignature(name: string, signature: Signature, templates = false): string {
  const describe = (param: Param) => `${param.name ? `${param.name} => ` : ''}${describePattern(param.type, templates)}`;
  const repeated = signature.params.filter((param) => param.repeated).map(describe);
  const params = signature.params.flatMap((param, index) => {
    if (param.repeated) return signature.params.findIndex((other) => other.repeated) === index ? [`[${repeated.join(', ')}, ...]`] : [];
    return [param.optional ? `[${describe(param)}]` : describe(param)];
  });
  return `${name}(${params.join(', ')})`;
}
