/**
 * Parsing ClickHouse SQL: sqlparser-rs's ClickHouse grammar, after `{name:Type}` query
 * parameters are replaced by `@name` (which the grammar reads as a placeholder) padded to the
 * same length, so that every position the parser reports is still the position in the query as
 * written. The Type of each parameter is kept by its position for the lowering.
 */

import { ClickHouseDialect, Parser } from '@guanmingchiu/sqlparser-ts';
import type { AstQuery, Position } from '../ast.ts';
import { invalidSql, parseOneQuery } from '../parse.ts';

/** A `{name:Type}` parameter as written: where its `@name` now stands, and its ClickHouse type. */
export interface TypedParameter {
  name: string;
  type: string;
  at: Position;
}

export interface ParsedClickHouse {
  ast: AstQuery;
  /** Typed parameters by `line:column` of the placeholder. */
  typedParameters: ReadonlyMap<string, TypedParameter>;
  /** What the outermost query's LIMIT clauses say that the grammar cannot read (limitTail). */
  limits: OuterLimits;
}

/**
 * `LIMIT n OFFSET m BY x` and `LIMIT n BY x LIMIT k [OFFSET j]` on the outermost query: the grammar
 * reads only `LIMIT n BY x`, so the rest is blanked out of the text (positions kept) and kept here.
 */
export interface OuterLimits {
  byOffset?: number;
  limit?: number;
  offset?: number;
}

const clickHouseParser = () => new Parser(new ClickHouseDialect());

export function parseClickHouseQuery(sql: string): ParsedClickHouse {
  const { text, parameters } = replaceTypedParameters(sql);
  const { text: readable, limits } = limitTail(text);
  const ast = parseOneQuery(readable, clickHouseParser);
  return { ast, typedParameters: new Map(parameters.map((parameter) => [positionKey(parameter.at), parameter])), limits };
}

interface Word {
  text: string;
  start: number;
  end: number;
}

/** The words and numbers outside parentheses, strings and comments (the outermost query's clauses). */
function topLevelWords(sql: string): Word[] {
  const words: Word[] = [];
  let depth = 0;
  let index = 0;
  while (index < sql.length) {
    const char = sql[index]!;
    if (char === "'" || char === '"' || char === '`') index = endOfQuoted(sql, index);
    else if (char === '-' && sql[index + 1] === '-') index = sql.indexOf('\n', index) < 0 ? sql.length : sql.indexOf('\n', index);
    else if (char === '/' && sql[index + 1] === '*') index = sql.indexOf('*/', index + 2) < 0 ? sql.length : sql.indexOf('*/', index + 2) + 2;
    else if (char === '(' || char === ')') {
      depth += char === '(' ? 1 : -1;
      index++;
    } else if (/[A-Za-z0-9_]/.test(char)) {
      const start = index;
      while (index < sql.length && /[A-Za-z0-9_]/.test(sql[index]!)) index++;
      if (depth === 0) words.push({ text: sql.slice(start, index), start, end: index });
    } else {
      if (depth === 0 && char === ',') words.push({ text: ',', start: index, end: index + 1 });
      index++;
    }
  }
  return words;
}

const blank = (sql: string, start: number, end: number) => sql.slice(0, start) + sql.slice(start, end).replace(/[^\n]/g, ' ') + sql.slice(end);
const isInteger = (word: Word | undefined) => word !== undefined && /^\d+$/.test(word.text);
const isKeyword = (word: Word | undefined, keyword: string) => word?.text.toUpperCase() === keyword;

function limitTail(sql: string): { text: string; limits: OuterLimits } {
  const words = topLevelWords(sql);
  const limits: OuterLimits = {};
  let text = sql;
  const first = words.findIndex((word) => isKeyword(word, 'LIMIT'));
  // With a set operation at the top the LIMITs belong to its SELECTs: left to the grammar.
  const setOperation = words.some((word) => ['UNION', 'INTERSECT', 'EXCEPT'].includes(word.text.toUpperCase()));
  if (first < 0 || setOperation) return { text, limits };
  // LIMIT n OFFSET m BY …
  const [count, offsetWord, offset, by] = words.slice(first + 1, first + 5);
  if (isInteger(count) && isKeyword(offsetWord, 'OFFSET') && isInteger(offset) && isKeyword(by, 'BY')) {
    limits.byOffset = Number(offset!.text);
    text = blank(text, offsetWord!.start, offset!.end);
  }
  const byAt = words.findIndex((word, index) => index > first && isKeyword(word, 'BY'));
  const second = words.findIndex((word, index) => index > byAt && byAt > first && isKeyword(word, 'LIMIT'));
  if (second < 0) return { text, limits };
  // … LIMIT k [OFFSET j] or LIMIT j, k, to the end of the statement.
  const [a, separator, b] = words.slice(second + 1, second + 4);
  if (isInteger(a) && separator?.text === ',' && isInteger(b)) Object.assign(limits, { offset: Number(a!.text), limit: Number(b!.text) });
  else if (isInteger(a) && isKeyword(separator, 'OFFSET') && isInteger(b)) Object.assign(limits, { limit: Number(a!.text), offset: Number(b!.text) });
  else if (isInteger(a)) limits.limit = Number(a!.text);
  else return { text, limits };
  const end = words.slice(second).reduce((last, word) => Math.max(last, word.end), 0);
  const rest = words.slice(second + 2 + (limits.offset !== undefined ? 2 : 0));
  if (rest.length > 0) return { text, limits: limits.byOffset !== undefined ? { byOffset: limits.byOffset } : {} };
  return { text: blank(text, words[second]!.start, end), limits };
}

export const positionKey = (at: Position) => `${at.line}:${at.column}`;

const PARAMETER_START = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*/y;

/**
 * `{name:Type}` → `@name` and spaces, outside string literals, quoted identifiers and comments.
 * Type may hold parentheses and quoted text (`DateTime64(3, 'UTC')`).
 */
export function replaceTypedParameters(sql: string): { text: string; parameters: TypedParameter[] } {
  const parameters: TypedParameter[] = [];
  let out = '';
  let line = 1;
  let lineStart = 0;
  let index = 0;
  const copyThrough = (end: number) => {
    for (let at = index; at < end; at++) {
      if (sql[at] === '\n') {
        line++;
        lineStart = at + 1;
      }
    }
    out += sql.slice(index, end);
    index = end;
  };
  while (index < sql.length) {
    const char = sql[index]!;
    if (char === "'" || char === '"' || char === '`') {
      copyThrough(endOfQuoted(sql, index));
      continue;
    }
    if (char === '-' && sql[index + 1] === '-') {
      const end = sql.indexOf('\n', index);
      copyThrough(end < 0 ? sql.length : end);
      continue;
    }
    if (char === '/' && sql[index + 1] === '*') {
      const end = sql.indexOf('*/', index + 2);
      copyThrough(end < 0 ? sql.length : end + 2);
      continue;
    }
    if (char === '{') {
      PARAMETER_START.lastIndex = index;
      const start = PARAMETER_START.exec(sql);
      if (start) {
        const typeStart = index + start[0].length;
        const end = endOfType(sql, typeStart);
        const type = sql.slice(typeStart, end).trim();
        if (sql[end] !== '}' || type === '') {
          throw invalidSql('a query parameter is written {name:Type}', { line, column: index - lineStart + 1 });
        }
        const written = sql.slice(index, end + 1);
        const placeholder = `@${start[1]}`;
        parameters.push({ name: start[1]!, type, at: { line, column: index - lineStart + 1 } });
        // Same length, and the same line breaks, so later positions do not move.
        out += placeholder + written.slice(placeholder.length).replace(/[^\n]/g, ' ');
        for (let at = index; at <= end; at++) {
          if (sql[at] === '\n') {
            line++;
            lineStart = at + 1;
          }
        }
        index = end + 1;
        continue;
      }
    }
    copyThrough(index + 1);
  }
  return { text: out, parameters };
}

/** The index just past a quoted literal or identifier starting at `start` (backslash escapes and doubled quotes). */
function endOfQuoted(sql: string, start: number): number {
  const quote = sql[start];
  let at = start + 1;
  while (at < sql.length) {
    if (sql[at] === '\\') at += 2;
    else if (sql[at] === quote && sql[at + 1] === quote) at += 2;
    else if (sql[at] === quote) return at + 1;
    else at++;
  }
  return sql.length;
}

/** The index of the `}` closing a parameter's type (or where the type stops making sense). */
function endOfType(sql: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    const char = sql[at]!;
    if (char === "'") {
      at = endOfQuoted(sql, at);
      continue;
    }
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if ((char === '}' && depth === 0) || depth < 0 || char === '{' || char === ';') return at;
    at++;
  }
  return at;
}
