/**
 * JSON text helpers that stay safe on hostile input: serialising values nested far deeper than
 * V8's recursive JSON.stringify can manage (it overflows the stack near 10,000 levels), and
 * locating a syntax error by line and column (V8's messages often name neither).
 */

/** JSON text of a parsed JSON value, whatever its nesting depth. */
export function toJsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (error instanceof RangeError) return stringifyIteratively(value);
    throw error;
  }
}

type Frame =
  | { kind: 'array'; items: unknown[]; next: number }
  | { kind: 'object'; entries: Array<[string, unknown]>; next: number };

/** Same output as JSON.stringify for JSON.parse results, with an explicit stack instead of recursion. */
function stringifyIteratively(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (value: unknown): void => {
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ kind: 'array', items: value, next: 0 });
    } else if (value !== null && typeof value === 'object') {
      out.push('{');
      const entries = Object.entries(value).filter(([, v]) => v !== undefined);
      stack.push({ kind: 'object', entries, next: 0 });
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  };
  open(root);
  for (let top = stack.at(-1); top; top = stack.at(-1)) {
    const length = top.kind === 'array' ? top.items.length : top.entries.length;
    if (top.next >= length) {
      out.push(top.kind === 'array' ? ']' : '}');
      stack.pop();
      continue;
    }
    if (top.next > 0) out.push(',');
    const index = top.next++;
    if (top.kind === 'array') {
      open(top.items[index]);
    } else {
      const [key, value] = top.entries[index]!;
      out.push(JSON.stringify(key), ':');
      open(value);
    }
  }
  return out.join('');
}

export interface TextPosition {
  line: number;
  column: number;
}

/** 1-based line and column of a UTF-16 offset in `text`. */
export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

export interface JsonSyntaxError {
  /** UTF-16 offset of the first character that makes the text invalid. */
  offset: number;
  reason: string;
}

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';

/**
 * Find the first JSON syntax error in `text`, or undefined when it is valid JSON.
 * Only called after JSON.parse has failed, so clarity wins over speed; iterative, so any depth is fine.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const containers: Array<'[' | '{'> = [];
  let expect: Expect = 'value';
  let i = 0;
  const afterValue = (): Expect => (containers.length === 0 ? 'end' : 'comma-or-close');
  const fail = (reason: string, at = i): JsonSyntaxError => ({ offset: at, reason });

  for (;;) {
    i = skipWhitespace(text, i);
    if (i >= text.length) return expect === 'end' ? undefined : fail('unexpected end of input');
    const c = text[i]!;
    switch (expect) {
      case 'end':
        return fail(`unexpected ${describeChar(c)} after the end of the JSON value`);
      case 'value':
      case 'value-or-close': {
        if (c === ']' && expect === 'value-or-close') {
          containers.pop();
          i++;
          expect = afterValue();
        } else if (c === '{' || c === '[') {
          containers.push(c);
          i++;
          expect = c === '{' ? 'key-or-close' : 'value-or-close';
        } else {
          const scanned = scanScalar(text, i);
          if (typeof scanned !== 'number') return scanned;
          i = scanned;
          expect = afterValue();
        }
        break;
      }
      case 'key':
      case 'key-or-close': {
        if (c === '}' && expect === 'key-or-close') {
          containers.pop();
          i++;
          expect = afterValue();
          break;
        }
        if (c !== '"') return fail(`expected a property name in double quotes, found ${describeChar(c)}`);
        const scanned = scanString(text, i);
        if (typeof scanned !== 'number') return scanned;
        i = scanned;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (c !== ':') return fail(`expected ':' after a property name, found ${describeChar(c)}`);
        i++;
        expect = 'value';
        break;
      case 'comma-or-close': {
        const inObject = containers.at(-1) === '{';
        const close = inObject ? '}' : ']';
        if (c === ',') {
          i++;
          expect = inObject ? 'key' : 'value';
        } else if (c === close) {
          containers.pop();
          i++;
          expect = afterValue();
        } else {
          return fail(`expected ',' or '${close}', found ${describeChar(c)}`);
        }
        break;
      }
    }
  }
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Offset just past the scalar starting at `from`, or the error it contains. */
function scanScalar(text: string, from: number): number | JsonSyntaxError {
  const c = text[from]!;
  if (c === '"') return scanString(text, from);
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, from)) return from + literal.length;
  }
  NUMBER.lastIndex = from;
  if (NUMBER.test(text)) return NUMBER.lastIndex;
  return { offset: from, reason: `unexpected ${describeChar(c)} where a value was expected` };
}

const ESCAPABLE = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

function scanString(text: string, from: number): number | JsonSyntaxError {
  for (let i = from + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { offset: i, reason: 'unescaped control character in a string' };
    if (code !== 0x5c) continue;
    const escaped = text[i + 1];
    if (escaped === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        return { offset: i, reason: 'invalid \\u escape in a string' };
      }
      i += 5;
    } else if (escaped !== undefined && ESCAPABLE.has(escaped)) {
      i += 1;
    } else {
      return { offset: i, reason: 'invalid escape sequence in a string' };
    }
  }
  return { offset: text.length, reason: 'unterminated string' };
}

function describeChar(c: string): string {
  return /^[\x21-\x7e]$/.test(c) ? `'${c}'` : `character U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
