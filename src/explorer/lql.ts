/**
 * A small log query language in the spirit of Logflare's LQL. Clauses are separated by spaces
 * and all must hold:
 *
 *   error                     event_message contains "error" (any case)
 *   "connection reset"        a phrase, quotes keep the spaces
 *   level:error               a top-level field equals a value
 *   m.response.status_code:>=500    a field inside metadata (`m.` or `metadata.`), compared
 *   m.request.path:~"^/rest"  regular expression match
 *   m.duration_ms:100..250    inclusive range
 *   m.user_id:NULL            the field is absent
 *   -m.level:debug  -timeout  a leading `-` negates a clause
 *   level:error OR level:warn     either holds (AND binds tighter; AND is optional)
 *   (a OR b) -(c OR d)        parentheses group; `-(` or NOT negates a group
 *
 * A path without `m.` names a top-level field or, failing that, the same field inside
 * metadata (both, when both exist); `level` also finds OpenTelemetry's `severity_text`, and
 * compares without regard to case (ERROR, error).
 *
 * This module only parses and evaluates in JS (live tail); `./sql.ts` turns the same clauses
 * into a BigQuery-dialect query for the translator.
 */

import { AppError } from '../errors.ts';
import { compileRegex, regexTester } from './regex.ts';

export type Comparison = '=' | '>' | '>=' | '<' | '<=';

export type Clause =
  | { kind: 'text'; text: string; negated: boolean }
  | { kind: 'compare'; path: string[]; op: Comparison; value: string; negated: boolean }
  | { kind: 'regex'; path: string[]; pattern: string; negated: boolean }
  | { kind: 'range'; path: string[]; low: string; high: string; negated: boolean }
  | { kind: 'null'; path: string[]; negated: boolean };

/** How clauses combine; `and` / `or` have at least two items. */
export type LqlExpr = { kind: 'clause'; clause: Clause } | { kind: 'and' | 'or'; items: LqlExpr[] } | { kind: 'not'; item: LqlExpr };

export interface LqlQuery {
  /** Every clause, in the order written. */
  clauses: Clause[];
  /** How they combine; null for an empty query. */
  expr: LqlExpr | null;
}

/** Paths a bare field (no `m.`) may mean, in order: top level, then inside metadata. */
const LEVEL_NAMES = ['level', 'severity_text'];
export const isLevelPath = (path: string[]) => path.length === 1 && LEVEL_NAMES.includes(path[0]!.toLowerCase());

export function candidatePaths(path: string[]): string[][] {
  if (path[0] === 'metadata') return [path];
  const names = isLevelPath(path) ? [[path[0]!], ...LEVEL_NAMES.filter((name) => name !== path[0]!.toLowerCase()).map((name) => [name])] : [path];
  return names.flatMap((names) => [names, ['metadata', ...names]]);
}

export const MAX_QUERY_LENGTH = 4_000;
const MAX_CLAUSES = 32;
/** Parentheses and NOT inside one another: the SQL a filter becomes nests too, and its parser stops at about 20. */
export const MAX_NESTING = 16;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Prefixes that name the `metadata` column, as in Logflare. */
const METADATA_ALIASES = new Set(['m', 'metadata']);

export const lqlError = (message: string) => new AppError(400, 'invalid_query', message);

interface Token {
  text: string;
  quoted: boolean;
}

/** Split on spaces outside double quotes; `\"` and `\\` escape inside quotes. */
function tokenize(input: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inQuotes = false;
  let started = false;
  for (let i = 0; i < input.length; i++) {
    const char = input[i]!;
    if (inQuotes) {
      if (char === '\\' && (input[i + 1] === '"' || input[i + 1] === '\\')) {
        current += char + input[i + 1];
        i++;
      } else {
        current += char;
        if (char === '"') inQuotes = false;
      }
    } else if (/\s/.test(char)) {
      if (started) tokens.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
      if (char === '"') inQuotes = true;
    }
  }
  if (inQuotes) throw lqlError('a double quote is not closed');
  if (started) tokens.push(current);
  return tokens;
}

/** A value as written: `"quoted text"` loses its quotes and escapes, bare text stays as is. */
function unquote(raw: string): Token {
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    return { text: raw.slice(1, -1).replace(/\\(["\\])/g, '$1'), quoted: true };
  }
  if (raw.includes('"')) throw lqlError(`unexpected double quote in ${raw}: quote the whole value, e.g. key:"a b"`);
  return { text: raw, quoted: false };
}

function parsePath(raw: string): string[] {
  const segments = raw.split('.');
  for (const segment of segments) {
    if (!IDENTIFIER.test(segment)) throw lqlError(`"${raw}" is not a field path: use names of letters, digits and _ joined by dots, e.g. m.request.path`);
  }
  if (METADATA_ALIASES.has(segments[0]!.toLowerCase())) {
    if (segments.length === 1) throw lqlError(`name a field inside metadata, e.g. ${segments[0]}.level`);
    segments[0] = 'metadata';
  }
  return segments;
}

function parseClause(raw: string): Clause {
  let negated = false;
  let body = raw;
  if (body.length > 1 && body.startsWith('-')) {
    negated = true;
    body = body.slice(1);
  }
  // A colon outside quotes, preceded by something path-like, makes a field filter.
  const colon = body.indexOf(':');
  const quote = body.indexOf('"');
  const isField = colon > 0 && (quote === -1 || quote > colon) && /^[A-Za-z_][A-Za-z0-9_.]*$/.test(body.slice(0, colon));
  if (!isField) {
    const text = unquote(body).text;
    if (text === '') throw lqlError('empty search text');
    return { kind: 'text', text, negated };
  }

  const path = parsePath(body.slice(0, colon));
  let rest = body.slice(colon + 1);
  if (rest.startsWith('~')) {
    const pattern = unquote(rest.slice(1)).text;
    if (pattern === '') throw lqlError(`${path.join('.')}:~ needs a pattern`);
    compileRegex(pattern, path.join('.'));
    return { kind: 'regex', path, pattern, negated };
  }
  const op = (['>=', '<=', '>', '<'] as const).find((candidate) => rest.startsWith(candidate)) ?? '=';
  if (op !== '=') rest = rest.slice(op.length);
  const value = unquote(rest);
  if (op === '=' && !value.quoted) {
    if (value.text === 'NULL') return { kind: 'null', path, negated };
    const range = /^(-?[\d.]+)\.\.(-?[\d.]+)$/.exec(value.text);
    if (range) {
      const [low, high] = [range[1]!, range[2]!];
      if (!isNumeric(low) || !isNumeric(high)) throw lqlError(`range ${value.text} must be two numbers, e.g. 200..299`);
      return { kind: 'range', path, low, high, negated };
    }
  }
  if (value.text === '' && !value.quoted) throw lqlError(`${path.join('.')}: needs a value, e.g. ${path.join('.')}:value or ${path.join('.')}:""`);
  return { kind: 'compare', path, op, value: value.text, negated };
}

export const isNumeric = (text: string) => /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text);

type Piece = { kind: 'open'; negated: boolean } | { kind: 'close' } | { kind: 'or' } | { kind: 'and' } | { kind: 'not' } | { kind: 'clause'; raw: string };

/**
 * Words become pieces: `(` and `-(` open groups at the start of a word, `)` at its end closes
 * open groups (a `)` with no group open is part of the text), OR / AND / NOT in capitals combine.
 */
function pieces(words: string[]): Piece[] {
  const out: Piece[] = [];
  let depth = 0;
  for (let word of words) {
    if (word === 'OR' || word === 'AND' || word === 'NOT') {
      out.push({ kind: word.toLowerCase() as 'or' | 'and' | 'not' });
      continue;
    }
    if (word === 'or' || word === 'and') throw lqlError(`write ${word.toUpperCase()} in capitals to combine clauses, or "${word}" in quotes to search for the word`);
    for (;;) {
      const negated = word.startsWith('-(');
      if (!negated && !word.startsWith('(')) break;
      out.push({ kind: 'open', negated });
      depth++;
      word = word.slice(negated ? 2 : 1);
    }
    let closing = 0;
    while (depth - closing > 0 && word.endsWith(')') && !word.endsWith('")"')) {
      word = word.slice(0, -1);
      closing++;
    }
    if (word !== '') out.push({ kind: 'clause', raw: word });
    for (let i = 0; i < closing; i++) out.push({ kind: 'close' });
    depth -= closing;
  }
  return out;
}

/** or := and (OR and)*;  and := unary (AND? unary)*;  unary := NOT unary | ( or ) | clause */
class ExprParser {
  private at = 0;
  readonly clauses: Clause[] = [];
  /** Groups and NOTs open around the piece being parsed. */
  private depth = 0;

  constructor(private readonly pieces: Piece[]) {}

  /** One level of parentheses or NOT; deeper than MAX_NESTING is refused here, in LQL's words. */
  private nested(parse: () => LqlExpr): LqlExpr {
    if (++this.depth > MAX_NESTING) throw lqlError(`groups and negations nest at most ${MAX_NESTING} deep`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  parse(): LqlExpr | null {
    if (this.pieces.length === 0) return null;
    const expr = this.or();
    const next = this.pieces[this.at];
    if (next) throw lqlError(next.kind === 'close' ? 'a ) closes no group' : `unexpected ${next.kind.toUpperCase()}`);
    return expr;
  }

  private or(): LqlExpr {
    const items = [this.and()];
    while (this.pieces[this.at]?.kind === 'or') {
      this.at++;
      items.push(this.and());
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(): LqlExpr {
    const items = [this.unary()];
    for (;;) {
      const next = this.pieces[this.at];
      if (next?.kind === 'and') {
        this.at++;
        items.push(this.unary());
      } else if (next && next.kind !== 'or' && next.kind !== 'close') {
        items.push(this.unary());
      } else break;
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private unary(): LqlExpr {
    const piece = this.pieces[this.at++];
    if (!piece) throw lqlError('the query ends where a clause should follow (after OR, AND or NOT)');
    switch (piece.kind) {
      case 'not':
        return { kind: 'not', item: this.nested(() => this.unary()) };
      case 'open': {
        if (this.pieces[this.at]?.kind === 'close') throw lqlError('empty parentheses');
        const inner = this.nested(() => this.or());
        if (this.pieces[this.at]?.kind !== 'close') throw lqlError('a ( is not closed');
        this.at++;
        return piece.negated ? { kind: 'not', item: inner } : inner;
      }
      case 'clause': {
        const clause = parseClause(piece.raw);
        this.clauses.push(clause);
        return { kind: 'clause', clause };
      }
      default:
        throw lqlError(piece.kind === 'close' ? 'a ) closes no group' : `${piece.kind.toUpperCase()} needs a clause on each side`);
    }
  }
}

export function parseLql(input: string): LqlQuery {
  if (input.length > MAX_QUERY_LENGTH) throw lqlError(`query is longer than ${MAX_QUERY_LENGTH} characters`);
  const parser = new ExprParser(pieces(tokenize(input)));
  const expr = parser.parse();
  if (parser.clauses.length > MAX_CLAUSES) throw lqlError(`at most ${MAX_CLAUSES} clauses`);
  return { clauses: parser.clauses, expr };
}

// ---------------------------------------------------------------------------------------------
// Evaluation against one event, for live tail. It follows the SQL the explorer runs: a path
// through records reaches every element of repeated records; a clause on a field holds when some
// reached value matches; when the path's records are missing the event does not match, negated
// or not (CROSS JOIN UNNEST drops such rows); comparisons are numeric when the stored value is a
// number.

/** An event as the writer commits it: fixed columns plus its other top-level fields. */
export interface TailEvent {
  id: string;
  /** Microseconds since the epoch. */
  timestamp: number;
  event_message: string;
  fields: { [key: string]: unknown };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function member(record: Record<string, unknown>, name: string): unknown {
  if (name in record) return record[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(record)) if (key.toLowerCase() === lower) return record[key];
  return undefined;
}

/**
 * What a path reaches: `parents` is how many records held the last segment (0 means the path's
 * records are missing), `values` the scalar values found (arrays of scalars flattened).
 */
function reach(event: TailEvent, path: string[]): { parents: number; values: unknown[] } {
  const top: Record<string, unknown> = { ...event.fields, id: event.id, timestamp: event.timestamp, event_message: event.event_message };
  let records: Record<string, unknown>[] = [top];
  for (const segment of path.slice(0, -1)) {
    records = records.flatMap((record) => {
      const next = member(record, segment);
      return (Array.isArray(next) ? next : [next]).filter(isRecord);
    });
  }
  const last = path.at(-1)!;
  const values = records.flatMap((record) => {
    const value = member(record, last);
    return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  });
  return { parents: records.length, values };
}

function timestampMicros(text: string): number | undefined {
  if (isNumeric(text)) return Number(text);
  const millis = Date.parse(text);
  return Number.isNaN(millis) ? undefined : millis * 1000;
}

function compareValues(stored: unknown, op: Comparison, wanted: string, isTimestamp: boolean): boolean {
  let left: number | string;
  let right: number | string;
  if (isTimestamp) {
    const micros = timestampMicros(wanted);
    if (micros === undefined) return false;
    [left, right] = [Number(stored), micros];
  } else if (typeof stored === 'number') {
    if (!isNumeric(wanted)) return false;
    [left, right] = [stored, Number(wanted)];
  } else if (typeof stored === 'boolean') {
    return op === '=' && String(stored) === wanted.toLowerCase();
  } else if (isRecord(stored)) {
    return false;
  } else {
    [left, right] = [String(stored), wanted];
  }
  switch (op) {
    case '=':
      return left === right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
    case '<':
      return left < right;
    case '<=':
      return left <= right;
  }
}

/** What a clause's path reaches, over every path it may mean (`level` is also `m.level`, …). */
function reachAny(event: TailEvent, path: string[]): { parents: number; values: unknown[] } {
  const reached = candidatePaths(path).map((candidate) => reach(event, candidate));
  return { parents: reached.reduce((sum, one) => sum + one.parents, 0), values: reached.flatMap((one) => one.values) };
}

type Matcher = (event: TailEvent) => boolean;

/**
 * Compile once, test many events: regular expressions are built a single time. A regex test the
 * budget refuses throws RegexSkipped (./regex.ts): the event was not filtered.
 */
export function compileMatcher(query: LqlQuery): Matcher {
  const compile = (expr: LqlExpr): Matcher => {
    switch (expr.kind) {
      case 'clause':
        return clauseMatcher(expr.clause);
      case 'not': {
        const inner = compile(expr.item);
        return (event) => !inner(event);
      }
      case 'and': {
        const items = expr.items.map(compile);
        return (event) => items.every((test) => test(event));
      }
      case 'or': {
        const items = expr.items.map(compile);
        return (event) => items.some((test) => test(event));
      }
    }
  };
  return query.expr ? compile(query.expr) : () => true;
}

function clauseMatcher(clause: Clause): Matcher {
  if (clause.kind === 'text') {
    const needle = clause.text.toLowerCase();
    return (event) => event.event_message.toLowerCase().includes(needle) !== clause.negated;
  }
  const isTimestamp = clause.path.length === 1 && clause.path[0]!.toLowerCase() === 'timestamp';
  // Levels are written ERROR by OpenTelemetry and error by most loggers: the same to a reader.
  const anyCase = isLevelPath(clause.path);
  let matches: (value: unknown) => boolean;
  switch (clause.kind) {
    case 'null':
      return (event) => {
        const { parents, values } = reachAny(event, clause.path);
        return parents > 0 && (values.length === 0) !== clause.negated;
      };
    case 'regex': {
      const test = regexTester(compileRegex(clause.pattern, clause.path.join('.')));
      matches = (value) => test(typeof value === 'string' ? value : JSON.stringify(value));
      break;
    }
    case 'range':
      matches = (value) => compareValues(value, '>=', clause.low, isTimestamp) && compareValues(value, '<=', clause.high, isTimestamp);
      break;
    case 'compare':
      matches = anyCase
        ? (value) => compareValues(typeof value === 'string' ? value.toLowerCase() : value, clause.op, clause.value.toLowerCase(), false)
        : (value) => compareValues(value, clause.op, clause.value, isTimestamp);
      break;
  }
  return (event) => {
    const { parents, values } = reachAny(event, clause.path);
    // As in the explorer's SQL: a negated clause holds for an event without the field, not for one without its records.
    if (values.length === 0) return clause.negated && parents > 0;
    return clause.negated ? !values.some(matches) : values.some(matches);
  };
}
