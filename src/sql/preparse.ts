/**
 * Rewrites of BigQuery syntax the parser's grammar lacks, done on the text before parsing.
 * Strings, quoted names and comments are skipped. Positions in error messages after a rewritten
 * spot shift by the few characters it added or removed.
 *
 * - The typed array literal `ARRAY<T>[e1, e2]` (the grammar reads `ARRAY < T > [e1, e2]` as
 *   comparisons, or fails on `>>`) becomes the cast the grammar has, `CAST([e1, e2] AS
 *   ARRAY<T>)`, which the lowering turns back into a literal of that type (lower.ts typedValue).
 * - The escapes `\xhh`, `\uhhhh`, `\Uhhhhhhhh` and `\ooo` in string literals (the grammar drops
 *   the backslash and keeps the digits) become the characters they stand for.
 * - An integer literal in hex (`0xF001`) becomes its decimal value.
 * - A bytes literal (`b'…'`, `B"…"`, `rb'…'`, triple-quoted too) becomes `b'<hex of its bytes>'`:
 *   its escapes stand for bytes (`b'\xff'` is one byte), which the grammar would turn into
 *   characters. The lowering reads every bytes literal as hex (lower.ts).
 * - `SAFE.name(`: the function's name is quoted (`SAFE.\`name\`(`), since the grammar reads
 *   SUBSTR, TRIM, EXTRACT, POSITION … after a dot as a name it then cannot call.
 */

export function rewriteBeforeParse(sql: string): string {
  return rewriteSafeCalls(rewriteHexIntegers(decodeCodeEscapes(rewriteTypedArrays(sql))));
}

/** `SAFE.substr(` as `SAFE.\`substr\`(`; not after a dot (a column path) nor inside strings, quoted names or comments. */
function rewriteSafeCalls(sql: string): string {
  if (!/safe\s*\./i.test(sql)) return sql;
  return rewriteOutsideOpaque(sql, (index) => {
    const call = index > 0 && /[\w.`]/.test(sql[index - 1]!) ? null : /^(safe\s*\.\s*)([A-Za-z_]\w*)(?=\s*\()/i.exec(sql.slice(index, index + 200));
    return call ? { text: `${call[1]}\`${call[2]}\``, end: index + call[0].length } : undefined;
  });
}

/** `0x1F` (an INT64 written in hex, which the grammar lacks) as its decimal value; one past INT64 is left for the parser to refuse. */
function rewriteHexIntegers(sql: string): string {
  if (!/0[xX][0-9A-Fa-f]/.test(sql)) return sql;
  return rewriteOutsideOpaque(sql, (index) => {
    const hex = index > 0 && WORD.test(sql[index - 1]!) ? null : /^0[xX]([0-9A-Fa-f]+)(?![A-Za-z0-9_])/.exec(sql.slice(index));
    return hex && BigInt(`0x${hex[1]}`) <= 0x7fffffffffffffffn ? { text: BigInt(`0x${hex[1]}`).toString(), end: index + hex[0].length } : undefined;
  });
}

const WORD = /[A-Za-z0-9_]/;

function rewriteTypedArrays(sql: string): string {
  if (!/ARRAY\s*</i.test(sql)) return sql;
  return rewriteOutsideOpaque(sql, (index) => {
    const literal = typedArrayAt(sql, index);
    return literal ? { text: `CAST([${rewriteTypedArrays(sql.slice(literal.open + 1, literal.close))}] AS ${literal.type})`, end: literal.close + 1 } : undefined;
  });
}

/**
 * `sql` with the text `rewrite` gives for a position (up to `end`) put in place of it, trying
 * every position outside strings, quoted names and comments.
 */
function rewriteOutsideOpaque(sql: string, rewrite: (index: number) => { text: string; end: number } | undefined): string {
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const skipped = skipOpaque(sql, index);
    if (skipped > index) {
      out += sql.slice(index, skipped);
      index = skipped;
      continue;
    }
    const replaced = rewrite(index);
    if (replaced) {
      out += replaced.text;
      index = replaced.end;
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
export function skipOpaque(sql: string, index: number): number {
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

/** A character escape by code: `\x41`, `\u20AC`, `\U0001F600`, `\101`. */
const CODE_ESCAPE = /\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|([0-7]{3}))/g;

function decodeCodeEscapes(sql: string): string {
  if (!/\\[xuU0-7v]/.test(sql) && !/(^|[^A-Za-z0-9_])[rR]?[bB][rR]?['"]/.test(sql)) return sql;
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const end = skipOpaque(sql, index);
    if (end === index) {
      out += sql[index];
      index++;
      continue;
    }
    const text = sql.slice(index, end);
    const prefix = literalPrefix(sql, index);
    if (prefix.includes('b') && (sql[index] === "'" || sql[index] === '"')) {
      // The grammar reads `b'…'` only, so the prefix is written again without `r`.
      out = `${out.slice(0, out.length - prefix.length)}b'${bytesOf(text, prefix.includes('r')).toString('hex')}'`;
    }
    else out += (sql[index] === "'" || sql[index] === '"') && !prefix.includes('r') ? decodeLiteral(text) : text;
    index = end;
  }
  return out;
}

/**
 * One string literal, quotes included: a quote or backslash by code becomes its plain escape, a
 * line break by code `\n` or `\r` (a raw one would shift the lines of later error positions), and
 * `\v`, which the grammar lacks, a vertical tab; NUL stays as written.
 */
function decodeLiteral(literal: string): string {
  return literal.replace(/\\\\|\\v|\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-7]{3})/g, (escape) => {
    if (escape === '\\\\') return escape;
    if (escape === '\\v') return '\v';
    CODE_ESCAPE.lastIndex = 0;
    const [, hex2, hex4, hex8, octal] = CODE_ESCAPE.exec(escape)!;
    const code = octal !== undefined ? parseInt(octal, 8) : parseInt((hex2 ?? hex4 ?? hex8)!, 16);
    if (code === 0x27 || code === 0x22 || code === 0x5c) return `\\${String.fromCharCode(code)}`;
    if (code === 0x0a) return '\\n';
    if (code === 0x0d) return '\\r';
    if (code === 0 || code > 0x10ffff) return escape;
    return String.fromCodePoint(code);
  });
}

/** The letters (`r`, `b`, lower case) written right before the quote at `index`, when they are a literal's prefix. */
function literalPrefix(sql: string, index: number): string {
  const match = /(?:^|[^A-Za-z0-9_])([rRbB]{1,2})$/.exec(sql.slice(Math.max(0, index - 3), index));
  return match ? match[1]!.toLowerCase() : '';
}

const BYTE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, "'": 39, '"': 34, '`': 96, '?': 63 };

/** The bytes a bytes literal stands for, quotes included in `literal`: escapes are bytes, other text is UTF-8. */
function bytesOf(literal: string, raw: boolean): Buffer {
  const quote = literal.startsWith(literal[0]!.repeat(3)) && literal.length >= 6 ? literal[0]!.repeat(3) : literal[0]!;
  const body = literal.slice(quote.length, literal.length - quote.length);
  if (raw) return Buffer.from(body, 'utf8');
  const bytes: number[] = [];
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (char !== '\\') {
      const point = body.codePointAt(index)!;
      bytes.push(...Buffer.from(String.fromCodePoint(point), 'utf8'));
      if (point > 0xffff) index++;
      continue;
    }
    const next = body[index + 1] ?? '';
    const hex = /^[xX]([0-9A-Fa-f]{2})/.exec(body.slice(index + 1));
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (hex) {
      bytes.push(parseInt(hex[1]!, 16));
      index += 3;
    } else if (octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      index += 3;
    } else {
      bytes.push(BYTE_ESCAPES[next] ?? next.charCodeAt(0));
      index += 1;
    }
  }
  return Buffer.from(bytes);
}
