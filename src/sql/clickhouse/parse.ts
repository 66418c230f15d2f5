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
}

const clickHouseParser = () => new Parser(new ClickHouseDialect());

export function parseClickHouseQuery(sql: string): ParsedClickHouse {
  const { text, parameters } = replaceTypedParameters(sql);
  const ast = parseOneQuery(text, clickHouseParser);
  return { ast, typedParameters: new Map(parameters.map((parameter) => [positionKey(parameter.at), parameter])) };
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
