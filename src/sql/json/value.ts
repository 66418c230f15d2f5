/**
 * BigQuery's JSON values, as ZetaSQL's JSONValue holds them: numbers are 64-bit integers
 * (signed or unsigned) or doubles, an object keeps the first of duplicate keys, and the text
 * form lists object keys in byte order without whitespace (nlohmann::json's dump, which
 * BigQuery's TO_JSON_STRING(json) and its results show). Used where the translator needs
 * BigQuery's exact JSON: `JSON '…'` literals, and JSON results read back from an engine.
 */

export type JsonValue =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  /** An integer in INT64 or UINT64 range, as written. */
  | { kind: 'int'; value: bigint }
  | { kind: 'double'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'array'; items: JsonValue[] }
  /** Members by key, the first of duplicates kept (insertion order; text sorts them). */
  | { kind: 'object'; members: Map<string, JsonValue> };

export class JsonSyntaxError extends Error {}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

export interface ParseOptions {
  /**
   * PARSE_JSON's wide_number_mode: 'exact' refuses a number a double cannot hold without
   * loss (BigQuery's default), 'round' rounds it.
   */
  wideNumbers?: 'exact' | 'round';
}

/** Parse JSON text as BigQuery does (RFC 8259, numbers classified as ZetaSQL does). */
export function parseJson(text: string, options: ParseOptions = {}): JsonValue {
  const parser = new Parser(text, options.wideNumbers ?? 'round');
  const value = parser.value(0);
  parser.space();
  if (parser.index < text.length) parser.fail('unexpected content after the JSON value');
  return value;
}

const MAX_DEPTH = 1000;

class Parser {
  index = 0;
  constructor(
    private readonly text: string,
    private readonly wideNumbers: 'exact' | 'round',
  ) {}

  fail(what: string): never {
    throw new JsonSyntaxError(`syntax error while parsing JSON at position ${this.index + 1}: ${what}`);
  }

  space(): void {
    while (this.index < this.text.length && ' \t\n\r'.includes(this.text[this.index]!)) this.index++;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    this.space();
    const char = this.text[this.index];
    switch (char) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return { kind: 'string', value: this.string() };
      case 't':
        return this.word('true', { kind: 'bool', value: true });
      case 'f':
        return this.word('false', { kind: 'bool', value: false });
      case 'n':
        return this.word('null', { kind: 'null' });
      default:
        if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.number();
        return this.fail(char === undefined ? 'unexpected end of input' : `invalid literal '${char}'`);
    }
  }

  private word(word: string, value: JsonValue): JsonValue {
    if (!this.text.startsWith(word, this.index)) this.fail(`invalid literal; expected '${word}'`);
    this.index += word.length;
    return value;
  }

  private object(depth: number): JsonValue {
    this.index++;
    const members = new Map<string, JsonValue>();
    this.space();
    if (this.text[this.index] === '}') {
      this.index++;
      return { kind: 'object', members };
    }
    for (;;) {
      this.space();
      if (this.text[this.index] !== '"') this.fail('expected a string for an object key');
      const key = this.string();
      this.space();
      if (this.text[this.index] !== ':') this.fail("expected ':' after an object key");
      this.index++;
      const value = this.value(depth + 1);
      if (!members.has(key)) members.set(key, value);
      this.space();
      const next = this.text[this.index++];
      if (next === '}') return { kind: 'object', members };
      if (next !== ',') this.fail("expected ',' or '}' in an object");
    }
  }

  private array(depth: number): JsonValue {
    this.index++;
    const items: JsonValue[] = [];
    this.space();
    if (this.text[this.index] === ']') {
      this.index++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.space();
      const next = this.text[this.index++];
      if (next === ']') return { kind: 'array', items };
      if (next !== ',') this.fail("expected ',' or ']' in an array");
    }
  }

  private string(): string {
    this.index++;
    let out = '';
    for (;;) {
      const char = this.text[this.index];
      if (char === undefined) this.fail('unexpected end of input in a string');
      if (char === '"') {
        this.index++;
        return out;
      }
      if (char < ' ') this.fail('control character in a string must be escaped');
      if (char !== '\\') {
        out += char;
        this.index++;
        continue;
      }
      const escape = this.text[this.index + 1];
      this.index += 2;
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (escape !== undefined && escape in simple) {
        out += simple[escape];
        continue;
      }
      if (escape !== 'u') this.fail('invalid escape in a string');
      const unit = this.hex4();
      if (unit >= 0xd800 && unit <= 0xdbff) {
        if (this.text[this.index] !== '\\' || this.text[this.index + 1] !== 'u') this.fail('a high surrogate must be followed by a low surrogate');
        this.index += 2;
        const low = this.hex4();
        if (low < 0xdc00 || low > 0xdfff) this.fail('a high surrogate must be followed by a low surrogate');
        out += String.fromCharCode(unit, low);
      } else if (unit >= 0xdc00 && unit <= 0xdfff) {
        this.fail('a low surrogate must follow a high surrogate');
      } else {
        out += String.fromCharCode(unit);
      }
    }
  }

  private hex4(): number {
    const digits = this.text.slice(this.index, this.index + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail("'\\u' must be followed by 4 hex digits");
    this.index += 4;
    return Number.parseInt(digits, 16);
  }

  private number(): JsonValue {
    const match = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.index));
    if (!match) this.fail('invalid number');
    const token = match[0];
    this.index += token.length;
    return numberValue(token, this.wideNumbers, (what) => this.fail(what));
  }
}

/**
 * A JSON number token as ZetaSQL reads it: an integer in UINT64 or INT64 range stays an integer,
 * anything else is a double; 'exact' refuses a double that does not hold the written value.
 */
function numberValue(token: string, wideNumbers: 'exact' | 'round', fail: (what: string) => never): JsonValue {
  if (!/[.eE]/.test(token)) {
    const integer = BigInt(token);
    if (integer >= INT64_MIN && integer <= UINT64_MAX) return { kind: 'int', value: integer };
  }
  const double = Number(token);
  if (!Number.isFinite(double)) fail(`number overflow parsing '${token}'`);
  if (wideNumbers === 'exact' && !sameDecimal(token, formatDouble(double))) {
    throw new JsonSyntaxError(`Input number: ${token} cannot round-trip through string representation`);
  }
  return { kind: 'double', value: double };
}

/** Whether two decimal number texts denote the same value (digits and exponent compared). */
function sameDecimal(a: string, b: string): boolean {
  // 0.DIGITS × 10^point, leading and trailing zeros of DIGITS dropped.
  const normal = (text: string) => {
    const [, sign = '', whole = '', fraction = '', exponent = '0'] = /^(-?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/.exec(text) ?? [];
    const all = `${whole}${fraction}`;
    const leading = all.length - all.replace(/^0+/, '').length;
    const significant = all.slice(leading).replace(/0+$/, '');
    return significant === '' ? '0' : `${sign}${significant}e${whole.length + Number(exponent) - leading}`;
  };
  return normal(a) === normal(b);
}

// ---- text ----------------------------------------------------------------------------------

/** BigQuery's text of a JSON value: keys in byte order, no whitespace. */
export function jsonText(value: JsonValue): string {
  switch (value.kind) {
    case 'null':
      return 'null';
    case 'bool':
      return value.value ? 'true' : 'false';
    case 'int':
      return value.value.toString();
    case 'double':
      return formatDouble(value.value);
    case 'string':
      return quoteJsonString(value.value);
    case 'array':
      return `[${value.items.map(jsonText).join(',')}]`;
    case 'object':
      return `{${sortedMembers(value).map(([key, member]) => `${quoteJsonString(key)}:${jsonText(member)}`).join(',')}}`;
  }
}

/** The text with two-space indentation, as TO_JSON_STRING(json, true) writes it (nlohmann's dump(2)). */
export function prettyJsonText(value: JsonValue, indent = 0): string {
  const pad = (level: number) => ' '.repeat(level);
  if (value.kind === 'array') {
    if (value.items.length === 0) return '[]';
    return `[\n${value.items.map((item) => `${pad(indent + 2)}${prettyJsonText(item, indent + 2)}`).join(',\n')}\n${pad(indent)}]`;
  }
  if (value.kind === 'object') {
    const members = sortedMembers(value);
    if (members.length === 0) return '{}';
    return `{\n${members.map(([key, member]) => `${pad(indent + 2)}${quoteJsonString(key)}: ${prettyJsonText(member, indent + 2)}`).join(',\n')}\n${pad(indent)}}`;
  }
  return jsonText(value);
}

/** Members in the order BigQuery prints them: keys by UTF-8 bytes (code points). */
export function sortedMembers(value: Extract<JsonValue, { kind: 'object' }>): Array<[string, JsonValue]> {
  return [...value.members].sort(([a], [b]) => compareCodePoints(a, b));
}

export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const difference = left[index]!.codePointAt(0)! - right[index]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/** A JSON string literal as nlohmann::json writes one: `"` `\` and control characters escaped. */
export function quoteJsonString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (code < 0x20) out += CONTROL_ESCAPES[char] ?? `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

const CONTROL_ESCAPES: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A double as nlohmann::json writes it: the shortest digits that read back as the same double,
 * in fixed notation while the decimal point falls within 15 digits (with `.0` when integral), else
 * `d.ddde+XX`.
 */
export function formatDouble(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const { digits, point } = shortestDigits(Math.abs(value));
  const k = digits.length;
  if (k <= point && point <= 15) return `${sign}${digits}${'0'.repeat(point - k)}.0`;
  if (point > 0 && point <= 15) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (point > -4 && point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  const exponent = point - 1;
  const mantissa = k === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** The shortest round-trip digits of a positive double and where the decimal point goes: 0.DIGITS × 10^point. */
function shortestDigits(value: number): { digits: string; point: number } {
  const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  return { digits, point: Number(exponent) + 1 };
}
