/**
 * BigQuery syntax the parser's grammar lacks, rewritten before parsing into syntax it has, with a
 * note of what was written, keyed by the position of the token the note is about: the lowering
 * reads the parsed tree and the notes together (lower.ts). A rewrite keeps the text's length
 * wherever it can, so every position the parser reports stays where the author wrote it.
 *
 * - `x [NOT] LIKE ALL UNNEST(…)` / `LIKE ALL (subquery)`: the grammar reads the quantifier ALL
 *   (and SOME) only before a list, so it becomes ANY, noted `like_all` at the pattern's first
 *   token (SOME is ANY).
 */

import type { Position } from './ast.ts';
import { skipOpaque } from './preparse.ts';

export type SyntaxNote = 'like_all';

export class SyntaxNotes {
  private readonly notes = new Map<string, SyntaxNote>();

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
  let out = sql;
  const lines = new LineIndex(sql);
  for (const match of code.matchAll(/\bLIKE\s+(ALL|SOME)(\s+)(?=UNNEST\s*\(|\(\s*(?:SELECT|WITH)\b)/gi)) {
    const quantifier = match.index + match[0].length - match[2]!.length - match[1]!.length;
    out = `${out.slice(0, quantifier)}${match[1]!.toUpperCase() === 'ALL' ? 'ANY' : 'ANY '}${out.slice(quantifier + match[1]!.length)}`;
    if (match[1]!.toUpperCase() === 'ALL') notes.add(lines.position(firstTokenAt(code, match.index + match[0].length)), 'like_all');
  }
  return { sql: out, notes };
}

/** The text with every string, quoted name and comment blanked out (newlines kept): code at the same offsets. */
function maskOpaque(sql: string): string {
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const end = skipOpaque(sql, index);
    if (end > index) {
      out += sql.slice(index, end).replace(/[^\n]/g, ' ');
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
