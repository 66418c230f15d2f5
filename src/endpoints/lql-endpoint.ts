/**
 * LQL endpoints: the explorer's filter language (src/explorer/lql.ts) saved as an endpoint. As in
 * Logflare's LQL, a `f:<source>` (or `from:<source>`) rule names what the query reads; the other
 * clauses filter that source's events. The query becomes BigQuery-dialect SQL for the same
 * translator BigQuery endpoints go through:
 *
 *   with events as (select t.* from `<source>` as t where <clauses>)
 *   select * from events order by timestamp desc
 *
 * so an LQL endpoint answers whole events, newest first, up to its max rows, and a sandboxable one
 * lets callers pass `sql` reading the `events` CTE. A value written `@name` is the caller's
 * parameter `name` (`m.status:>=@min_status`, `timestamp:>=@since`); every other value is written
 * into the SQL as a literal, so no caller can change it.
 */

import { AppError } from '../errors.ts';
import { parseLql } from '../explorer/lql.ts';
import { compileFilter } from '../explorer/sql.ts';
import type { RecordFields } from '../warehouse/types.ts';

/** The CTE a sandboxed caller's `sql` reads. */
export const LQL_EVENTS_CTE = 'events';

const PARAMETER = /^@([A-Za-z_][A-Za-z0-9_]*)$/;
const FROM_RULE = /^(?:f|from):(.*)$/s;

interface Word {
  text: string;
  /** Offset in the query. */
  at: number;
}

/** Words as LQL splits them: on white space outside double quotes. */
function words(query: string): Word[] {
  const found: Word[] = [];
  let start = -1;
  let quoted = false;
  for (let i = 0; i <= query.length; i++) {
    const char = query[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
      continue;
    }
    const space = char === undefined || /\s/.test(char);
    if (space && start >= 0) {
      found.push({ text: query.slice(start, i), at: start });
      start = -1;
    } else if (!space) {
      if (start < 0) start = i;
      if (char === '"') quoted = true;
    }
  }
  return found;
}

/** 1-based line and column of an offset, as SQL errors give them. */
function position(query: string, at: number): { line: number; column: number } {
  const before = query.slice(0, at).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

function lqlInvalid(message: string, query: string, at?: number): AppError {
  if (at === undefined) return new AppError(400, 'invalid_query', message);
  const where = position(query, at);
  return new AppError(400, 'invalid_query', `${message} (line ${where.line}, column ${where.column})`, where);
}

export interface LqlEndpointQuery {
  /** The source the `f:` rule names. */
  source: string;
  /** Where the `f:` rule is, for errors about the source. */
  sourceAt: number;
  /** The query without its `f:` rule: the filter. */
  filter: string;
}

/** Split the `f:` rule off a query; refuses a query without exactly one. */
export function splitLql(query: string): LqlEndpointQuery {
  const rules = words(query).filter((word) => FROM_RULE.test(word.text));
  if (rules.length === 0) throw lqlInvalid('an LQL endpoint names the source it reads with f:<source>, e.g. f:app.logs level:error', query, 0);
  if (rules.length > 1) throw lqlInvalid('only one f: (from) rule is allowed', query, rules[1]!.at);
  const rule = rules[0]!;
  let source = FROM_RULE.exec(rule.text)![1]!;
  if (source.length >= 2 && source.startsWith('"') && source.endsWith('"')) source = source.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (source === '') throw lqlInvalid('f: needs a source name, e.g. f:app.logs', query, rule.at);
  const filter = query.slice(0, rule.at) + ' '.repeat(rule.text.length) + query.slice(rule.at + rule.text.length);
  return { source, sourceAt: rule.at, filter };
}

/** A BigQuery string literal holding `value` exactly. */
function stringLiteral(value: string): string {
  const escaped = value.replace(/[\\'\n\r\t]/g, (char) => ({ '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' })[char]!);
  return `'${escaped}'`;
}

const OPTIONS = {
  literal: stringLiteral,
  parameter: (value: string) => (PARAMETER.test(value) ? value : undefined),
  // Conditions on nested fields test with EXISTS, so each event is one row however many elements match.
  joins: false,
};

/** The filter's conditions, every value a literal or the caller's parameter. */
function conditions(filter: string, schema: RecordFields): string[] {
  return compileFilter(parseLql(filter), schema, {}, OPTIONS).conditions;
}

/**
 * The BigQuery SQL an LQL endpoint runs, given the schema of the source it names. A refusal says
 * where in the LQL: at the first word that fails on its own, or at the `f:` rule.
 */
export function lqlToSql(query: string, schemaOf: (source: string) => RecordFields | undefined): string {
  const { source, sourceAt, filter } = splitLql(query);
  const schema = schemaOf(source);
  if (!schema) throw lqlInvalid(`source "${source}" not found`, query, sourceAt);
  let where: string[];
  try {
    where = conditions(filter, schema);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw lqlInvalid(error.message, query, culprit(filter, schema));
  }
  const sql = [`with ${LQL_EVENTS_CTE} as (`, 'select t.*', `from \`${source}\` as t`, where.length ? `where ${where.map((condition) => `(${condition})`).join(' and ')}` : '', ')'];
  return `${sql.filter(Boolean).join('\n')}\nselect * from ${LQL_EVENTS_CTE} order by timestamp desc`;
}

/**
 * Where the problem is: the first word that is wrong by itself (grouping and OR/AND/NOT left
 * aside), else what is wrong in how words combine (an open quote or parenthesis, a dangling
 * operator), if anything.
 */
function culprit(filter: string, schema: RecordFields): number | undefined {
  const all = words(filter);
  for (const word of all) {
    if (OPERATOR.test(word.text)) continue;
    const clause = word.text.replace(/^-?\(+/, '').replace(/\)+$/, '');
    if (clause === '' || clause === '-') continue;
    try {
      conditions(clause, schema);
    } catch {
      return word.at + word.text.indexOf(clause.slice(0, 1));
    }
  }
  return structuralCulprit(filter, all);
}

const OPERATOR = /^(OR|AND|NOT)$/;

function structuralCulprit(filter: string, all: Word[]): number | undefined {
  const quote = openQuote(filter);
  if (quote !== undefined) return quote;
  const open: number[] = [];
  for (const [index, word] of all.entries()) {
    const opening = /^(-?\()+/.exec(word.text)?.[0] ?? '';
    for (let i = 0; i < opening.length; i++) if (opening[i] === '(') open.push(word.at + i);
    for (let i = word.text.length - 1; i >= opening.length && word.text[i] === ')' && open.length > 0; i--) open.pop();
    const next = all[index + 1];
    // AND/OR need a clause on each side, NOT one after it.
    const dangling = !next || (OPERATOR.test(next.text) && next.text !== 'NOT') || (word.text !== 'NOT' && index === 0);
    if (OPERATOR.test(word.text) && dangling) return word.at;
  }
  return open.at(-1);
}

/** Where a double quote that is never closed opens. */
function openQuote(filter: string): number | undefined {
  let opened: number | undefined;
  for (let i = 0; i < filter.length; i++) {
    if (opened !== undefined && filter[i] === '\\') i++;
    else if (filter[i] === '"') opened = opened === undefined ? i : undefined;
  }
  return opened;
}
