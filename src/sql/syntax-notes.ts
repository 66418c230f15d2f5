/**
 * BigQuery syntax the parser's grammar lacks, rewritten before parsing into syntax it has, with a
 * note of what was written, keyed by the position of the token the note is about: the lowering
 * reads the parsed tree and the notes together (lower.ts). A rewrite keeps the text's length
 * wherever it can, so every position the parser reports stays where the author wrote it.
 *
 * - `x [NOT] LIKE ALL UNNEST(…)` / `LIKE ALL (subquery)`: the grammar reads the quantifier ALL
 *   (and SOME) only before a list, so it becomes ANY, noted `like_all` at the pattern's first
 *   token (SOME is ANY).
 * - Pipe syntax (pipe.ts): a query that starts with FROM gets `SELECT * ` before it (a
 *   rewrite that adds text: positions the parser reports after it on that line are moved back,
 *   see `restorePositions`); `|> SELECT DISTINCT` loses DISTINCT, noted `distinct` at the first
 *   item; `|> DISTINCT` becomes `|> WHERE  1`, noted `distinct` at the `1`; `GROUP AND ORDER BY`
 *   becomes `GROUP BY`, noted `order` at the first key; the deprecated `|> WINDOW` is `|> EXTEND`.
 * - A table named `table` after FROM, JOIN or a comma is quoted (`WITH table AS (…) SELECT … FROM
 *   table`, as BigQuery's documentation writes): the grammar reads `FROM table` as `TABLE(…)`.
 *   Like the leading FROM's `SELECT * `, these insertions move later positions on their line.
 * - `UNNEST(…) WITH OFFSET` without an alias, followed by a reserved keyword: the grammar
 *   takes the keyword for the offset's alias (`WITH OFFSET LEFT JOIN` read as an inner join, the
 *   offset named `LEFT`) or fails on it. It gets BigQuery's default alias written out,
 *   `WITH OFFSET AS offset`, an insertion too.
 */

import type { Position } from './ast.ts';
import { skipOpaque } from './preparse.ts';

export type SyntaxNote = 'like_all' | 'distinct' | 'order';

export class SyntaxNotes {
  private readonly notes = new Map<string, SyntaxNote>();
  /** Text inserted before parsing: `length` characters at `position` of the written text. */
  readonly insertions: Array<{ position: Position; length: number }> = [];

  add(position: Position, note: SyntaxNote): void {
    this.notes.set(`${position.line}:${position.column}`, note);
  }

  /** The note about the token at `position`, if any. */
  at(position: Position | undefined): SyntaxNote | undefined {
    return position ? this.notes.get(`${position.line}:${position.column}`) : undefined;
  }
}

export function rewriteWithNotes(sql: string): { sql: string; notes: SyntaxNotes } {
  const notes = new SyntaxNotes();
  const code = maskOpaque(sql);
  const lines = new LineIndex(sql);
  let out = sql;
  /** Replace `length` characters at `offset` by `text` of the same length. */
  const overwrite = (offset: number, length: number, text: string) => {
    out = `${out.slice(0, offset)}${text.padEnd(length)}${out.slice(offset + length)}`;
  };
  for (const match of code.matchAll(/\bLIKE\s+(ALL|SOME)(\s+)(?=UNNEST\s*\(|\(\s*(?:SELECT|WITH)\b)/gi)) {
    const quantifier = match.index + match[0].length - match[2]!.length - match[1]!.length;
    overwrite(quantifier, match[1]!.length, 'ANY');
    if (match[1]!.toUpperCase() === 'ALL') notes.add(lines.position(firstTokenAt(code, match.index + match[0].length)), 'like_all');
  }
  if (code.includes('|>')) {
    for (const match of code.matchAll(/\|>\s*SELECT\s+(DISTINCT)\b/gi)) {
      const word = match.index + match[0].length - match[1]!.length;
      overwrite(word, match[1]!.length, '');
      notes.add(lines.position(firstTokenAt(code, word + match[1]!.length)), 'distinct');
    }
    for (const match of code.matchAll(/\|>\s*(DISTINCT)\b/gi)) {
      const word = match.index + match[0].length - match[1]!.length;
      overwrite(word, match[1]!.length, 'WHERE  1');
      notes.add(lines.position(word + 'WHERE  '.length), 'distinct');
    }
    for (const match of code.matchAll(/\|>\s*(WINDOW)\b/gi)) overwrite(match.index + match[0].length - match[1]!.length, 6, 'EXTEND');
    for (const match of code.matchAll(/\bGROUP(\s+AND\s+ORDER)\s+BY\b/gi)) {
      overwrite(match.index + 'GROUP'.length, match[1]!.length, '');
      notes.add(lines.position(firstTokenAt(code, match.index + match[0].length)), 'order');
    }
  }
  // Last, as they move the text after them, from the end: `FROM …` where a query starts becomes
  // `SELECT * FROM …`; a table named `table` gets backticks.
  const insertions = [
    ...fromQueryStarts(code).map((offset) => ({ offset, text: 'SELECT * ' })),
    ...unaliasedOffsets(code).map((offset) => ({ offset, text: ' AS offset' })),
    ...tableNamedTable(code).flatMap((offset) => [
      { offset, text: '`' },
      { offset: offset + 'table'.length, text: '`' },
    ]),
  ].sort((a, b) => b.offset - a.offset);
  for (const { offset, text } of insertions) {
    out = `${out.slice(0, offset)}${text}${out.slice(offset)}`;
    notes.insertions.push({ position: lines.position(offset), length: text.length });
  }
  return { sql: out, notes };
}

/**
 * Where a table (a CTE, as BigQuery's documentation names them) is called `table` after FROM,
 * JOIN or a comma: the grammar reads `FROM table` as the start of `TABLE(…)`. (Not a keyword in
 * BigQuery; quoted, it is the same name.)
 */
function tableNamedTable(code: string): number[] {
  return [...code.matchAll(/(?:\bFROM|\bJOIN|,)\s+(table)\b(?!\s*\()/gi)].map((match) => match.index + match[0].length - match[1]!.length);
}

/**
 * Where `WITH OFFSET` (of an UNNEST) ends with no alias before a keyword the grammar would take
 * for its alias (the others, WHERE, GROUP …, it does not): the offsets just past OFFSET. These
 * keywords are reserved in BigQuery, so none can be the alias.
 */
function unaliasedOffsets(code: string): number[] {
  const follower = /\bWITH\s+OFFSET(?=\s+(?:JOIN|INNER|LEFT|RIGHT|FULL|CROSS|NATURAL|USING|ON|QUALIFY|WINDOW|TABLESAMPLE)\b)/gi;
  return [...code.matchAll(follower)].map((match) => match.index + match[0].length);
}

/**
 * Where a query written in pipe syntax starts with FROM: at the start of the text, after `(`, or
 * after the `)` that closes a WITH clause's last CTE (`… AS (…) FROM t`).
 */
function fromQueryStarts(code: string): number[] {
  const starts: number[] = [];
  for (const match of code.matchAll(/\bFROM\b/gi)) {
    let before = match.index - 1;
    while (before >= 0 && /\s/.test(code[before]!)) before--;
    if (before < 0 || code[before] === '(') starts.push(match.index);
    else if (code[before] === ')' && closesCte(code, before)) starts.push(match.index);
  }
  return starts;
}

/** Whether the `)` at `close` ends `name AS (…)` of a WITH clause. */
function closesCte(code: string, close: number): boolean {
  let depth = 0;
  let open = close;
  for (; open >= 0; open--) {
    if (code[open] === ')') depth++;
    else if (code[open] === '(' && --depth === 0) break;
  }
  const before = code.slice(0, Math.max(open, 0)).trimEnd();
  return open > 0 && /(?:^|[\s,(])[`\w.-]+\s+AS$/i.test(before) && /\bWITH\b/i.test(before);
}

/**
 * Positions the parser reported in the rewritten text, moved back to where the author wrote them
 * (in place, in every `{line, column}` of the tree or error).
 */
export function restorePositions(node: unknown, notes: SyntaxNotes): void {
  if (notes.insertions.length === 0 || node === null || typeof node !== 'object') return;
  const position = node as Partial<Position>;
  if (typeof position.line === 'number' && typeof position.column === 'number') {
    position.column = writtenColumn(position as Position, notes);
    return;
  }
  for (const child of Object.values(node)) restorePositions(child, notes);
}

/** The column, in the written text, of a position in the rewritten one (inside inserted text: where it was inserted). */
export function writtenColumn(position: Position, notes: SyntaxNotes): number {
  let shift = 0;
  const onLine = notes.insertions.filter((insertion) => insertion.position.line === position.line).sort((a, b) => a.position.column - b.position.column);
  for (const { position: at, length } of onLine) {
    const start = at.column + shift;
    if (position.column >= start + length) shift += length;
    else if (position.column >= start) return at.column;
  }
  return position.column - shift;
}

/** The text with every string, quoted name and comment filled with `x` (newlines kept): code at the same offsets. */
function maskOpaque(sql: string): string {
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const end = skipOpaque(sql, index);
    if (end > index) {
      out += sql.slice(index, end).replace(/[^\n]/g, 'x');
      index = end;
    } else out += sql[index++];
  }
  return out;
}

/** The offset of the first word after `index`, past parentheses and spaces (`(SELECT` → SELECT). */
function firstTokenAt(code: string, index: number): number {
  let cursor = index;
  while (cursor < code.length && /[\s(]/.test(code[cursor]!)) cursor++;
  return cursor;
}

/** Line and column (1-based, in characters) of offsets in one text, as the parser counts them. */
class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let index = 0; index < text.length; index++) if (text[index] === '\n') this.starts.push(index + 1);
  }

  position(offset: number): Position {
    let line = this.starts.length - 1;
    while (this.starts[line]! > offset) line--;
    return { line: line + 1, column: [...this.text.slice(this.starts[line], offset)].length + 1 };
  }
}
