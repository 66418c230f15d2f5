/**
 * BigQuery's typed array literal `ARRAY<T>[e1, e2]` is not in the parser's grammar (it reads
 * `ARRAY < T > [e1, e2]` as comparisons, or fails on `>>`). Before parsing, each one is rewritten
 * to the cast the grammar has, `CAST([e1, e2] AS ARRAY<T>)`, which the lowering turns back into
 * a literal of that type (lower.ts typedValue). Strings, quoted names and comments are skipped.
 * Positions in error messages after a rewritten literal shift by the few characters added.
 */

const WORD = /[A-Za-z0-9_]/;

export function rewriteTypedArrays(sql: string): string {
  if (!/ARRAY\s*</i.test(sql)) return sql;
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const skipped = skipOpaque(sql, index);
    if (skipped > index) {
      out += sql.slice(index, skipped);
      index = skipped;
      continue;
    }
    const literal = typedArrayAt(sql, index);
    if (literal) {
      out += `CAST([${rewriteTypedArrays(sql.slice(literal.open + 1, literal.close))}] AS ${literal.type})`;
      index = literal.close + 1;
      continue;
    }
    out += sql[index];
    index++;
  }
  return out;
}

/** `ARRAY<…>[` starting at `index`: the type text and the positions of its brackets. */
function typedArrayAt(sql: string, index: number): { type: string; open: number; close: number } | undefined {
  if (sql.slice(index, index + 5).toUpperCase() !== 'ARRAY' || (index > 0 && WORD.test(sql[index - 1]!))) return undefined;
  let cursor = skipSpace(sql, index + 5);
  if (sql[cursor] !== '<') return undefined;
  let depth = 0;
  for (; cursor < sql.length; cursor++) {
    if (sql[cursor] === '<') depth++;
    else if (sql[cursor] === '>' && --depth === 0) break;
    else if (!/[\sA-Za-z0-9_,<>`]/.test(sql[cursor]!)) return undefined;
  }
  if (depth !== 0) return undefined;
  const type = sql.slice(index, cursor + 1);
  const open = skipSpace(sql, cursor + 1);
  if (sql[open] !== '[') return undefined;
  const close = matchingBracket(sql, open);
  return close === undefined ? undefined : { type, open, close };
}

function skipSpace(sql: string, index: number): number {
  while (index < sql.length && /\s/.test(sql[index]!)) index++;
  return index;
}

/** The `]` closing the `[` at `open`, past nested brackets, strings and comments. */
function matchingBracket(sql: string, open: number): number | undefined {
  let depth = 0;
  let index = open;
  while (index < sql.length) {
    const skipped = skipOpaque(sql, index);
    if (skipped > index) {
      index = skipped;
      continue;
    }
    if (sql[index] === '[') depth++;
    else if (sql[index] === ']' && --depth === 0) return index;
    index++;
  }
  return undefined;
}

/** The end of a string literal, quoted name or comment starting at `index` (else `index`). */
function skipOpaque(sql: string, index: number): number {
  const char = sql[index];
  if (char === '-' && sql[index + 1] === '-') return lineEnd(sql, index);
  if (char === '#') return lineEnd(sql, index);
  if (char === '/' && sql[index + 1] === '*') {
    const end = sql.indexOf('*/', index + 2);
    return end < 0 ? sql.length : end + 2;
  }
  if (char !== "'" && char !== '"' && char !== '`') return index;
  const triple = char !== '`' && sql.startsWith(char.repeat(3), index);
  const quote = triple ? char.repeat(3) : char;
  let cursor = index + quote.length;
  while (cursor < sql.length) {
    if (sql[cursor] === '\\') cursor += 2;
    else if (sql.startsWith(quote, cursor)) return cursor + quote.length;
    else cursor++;
  }
  return sql.length;
}

function lineEnd(sql: string, index: number): number {
  const end = sql.indexOf('\n', index);
  return end < 0 ? sql.length : end;
}
