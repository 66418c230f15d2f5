/**
 * ClickHouse renderings of BigQuery's string functions. A ClickHouse String is bytes: STRING uses
 * the UTF8 forms of its functions, BYTES the plain ones. Code points are decoded and encoded from
 * their UTF-8 bytes here, since ClickHouse has no function for either.
 */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import { INITCAP_DELIMITERS, literalText, type STRING_FUNCTIONS } from '../../../sql/functions/families/string.ts';
import { WHITESPACE_CLASS } from '../../../sql/functions/regexp.ts';
import { MAX_STRING_OUTPUT_BYTES, outputTooLarge } from '../../../sql/output-limits.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { format } from './format.ts';
import { REGEXP } from './regexp.ts';
import { containsSubstr } from './search.ts';
import { characters, codePoint, guarded, int64, quoted } from './shared.ts';

const isBytes = (call: CallParts, index = 0) => argType(call, index) === 'BYTES';

/** NULL when one of `values` is (ClickHouse's padding, repeat, substringUTF8 … read a NULL count as 0). */
export const nullIfAnyNull = (values: string[], sql: string) => `if(${values.map((value) => `isNull(${value})`).join(' OR ')}, NULL, ${sql})`;
const int = (value: string) => `toInt64(${value})`;

/** The UTF-8 text of a code point (BigQuery refuses surrogates and values past U+10FFFF). */
export function utf8Char(point: string): string {
  const byte = (shift: number, lead: number) => `${lead} + intDiv(${point}, ${2 ** shift}) % ${lead === 0 ? 256 : 64}`;
  return (
    `multiIf(${point} < 128, char(${point}), ${point} < 2048, char(192 + intDiv(${point}, 64), ${byte(0, 128)}),` +
    ` ${point} < 65536, char(224 + intDiv(${point}, 4096), ${byte(6, 128)}, ${byte(0, 128)}),` +
    ` char(240 + intDiv(${point}, 262144), ${byte(12, 128)}, ${byte(6, 128)}, ${byte(0, 128)}))`
  );
}

const invalidCodePoint = (point: string) => `(${point} < 0 OR ${point} > 1114111 OR (${point} >= 55296 AND ${point} <= 57343))`;

/** The 1-based start SUBSTR reads from: 0 is 1, a negative one counts from the end (clamped to the first). */
const substrStart = (position: string, length: string) => `multiIf(${position} > 0, ${position}, ${position} = 0, 1, greatest(${length} + ${position} + 1, 1))`;

const substr: Emitter = (call) => {
  const bytes = isBytes(call);
  const [value, position, count] = [arg(call, 0), int(arg(call, 1)), optionalArg(call, 2)];
  const start = substrStart(position, bytes ? `length(${value})` : `lengthUTF8(${value})`);
  const taken = `${bytes ? 'substring' : 'substringUTF8'}(${value}, ${start}${count === undefined ? '' : `, greatest(${int(count)}, 0)`})`;
  if (count === undefined) return nullIfAnyNull([value, position], taken);
  return nullIfAnyNull([value, position, count], guarded(call, `${int(count)} < 0`, 'Third argument in SUBSTR() cannot be negative', taken));
};

const side =
  (name: 'left' | 'right'): Emitter =>
  (call) => {
    const count = int(arg(call, 1));
    const taken = `${name}${isBytes(call) ? '' : 'UTF8'}(${arg(call, 0)}, greatest(${count}, 0))`;
    return nullIfAnyNull([arg(call, 0), count], guarded(call, `${count} < 0`, `Second argument in ${name.toUpperCase()}() cannot be negative`, taken));
  };

const pad =
  (name: 'leftPad' | 'rightPad'): Emitter =>
  (call) => {
    const bytes = isBytes(call);
    const [value, length, pattern] = [arg(call, 0), int(arg(call, 1)), optionalArg(call, 2) ?? "' '"];
    const padded = `${name}${bytes ? '' : 'UTF8'}(${value}, toUInt64(greatest(${length}, 0)), ${pattern})`;
    const which = name === 'leftPad' ? 'lpad' : 'rpad';
    return nullIfAnyNull([value, length, pattern], guarded(
      call,
      `${length} < 0`,
      'Second argument (output size) for LPAD/RPAD cannot be negative',
      guarded(
        call,
        `${bytes ? 'length' : 'lengthUTF8'}(${pattern}) = 0`,
        'Third argument (pad pattern) for LPAD/RPAD cannot be empty',
        guarded(call, `${length} > ${MAX_STRING_OUTPUT_BYTES}`, outputTooLarge(which), padded),
      ),
    ));
  };

/** Every 1-based position where `needle` starts in `value` (overlapping), in characters or bytes. */
function occurrences(call: CallParts): string {
  const bytes = isBytes(call);
  const [value, needle] = [arg(call, 0), arg(call, 1)];
  const [length, substring] = bytes ? ['length', 'substring'] : ['lengthUTF8', 'substringUTF8'];
  const last = `toUInt64(greatest(toInt64(${length}(${value})) - toInt64(${length}(${needle})) + 2, 1))`;
  return `arrayFilter(sawmill_i -> ${substring}(${value}, sawmill_i, ${length}(${needle})) = ${needle}, range(1, ${last}))`;
}

const instr: Emitter = (call) => {
  const bytes = isBytes(call);
  const [value, needle] = [arg(call, 0), arg(call, 1)];
  if (call.args.length === 2) return `toInt64(${bytes ? 'position' : 'positionUTF8'}(${value}, ${needle}))`;
  const position = int(arg(call, 2));
  const occurrence = int(optionalArg(call, 3) ?? '1');
  const length = `toInt64(${bytes ? 'length' : 'lengthUTF8'}(${value}))`;
  const found = `if(${position} > 0, arrayFilter(sawmill_p -> sawmill_p >= ${position}, ${occurrences(call)}), arrayReverse(arrayFilter(sawmill_p -> sawmill_p <= ${length} + ${position} + 1, ${occurrences(call)})))`;
  const chosen = `toInt64(if(length(${found}) >= ${occurrence}, ${found}[${occurrence}], 0))`;
  const checked = guarded(call, `${position} = 0`, 'Position must be non-zero', guarded(call, `${occurrence} <= 0`, 'Occurrence must be positive', chosen));
  return nullIfAnyNull([value, needle, position, occurrence], checked);
};

function splitSubstr(call: CallParts): string {
  const [value, delimiter, start] = [arg(call, 0), arg(call, 1), int(arg(call, 2))];
  if (literalText(call.raw[1]) === undefined && call.raw[1]?.kind !== 'null') throw invalidSql('SPLIT_SUBSTR needs a literal delimiter on ClickHouse');
  const parts = `splitByString(${delimiter}, ${value})`;
  const first = `multiIf(${start} > 0, ${start}, ${start} = 0, 1, greatest(toInt64(length(${parts})) + ${start} + 1, 1))`;
  const count = call.args[3] === undefined ? `toInt64(length(${parts}))` : int(call.args[3]);
  const joined = `arrayStringConcat(arraySlice(${parts}, ${first}, greatest(${count}, 0)), ${delimiter})`;
  const nulls = [value, delimiter, start, count].map((part) => `isNull(${part})`).join(' OR ');
  return `if(${nulls}, NULL, ${guarded(call, `${count} < 0`, 'SPLIT_SUBSTR count cannot be negative', joined)})`;
}

/** SOUNDEX as BigQuery computes it (see the DuckDB rendering); ClickHouse's soundex treats H and W otherwise. */
function soundex(call: CallParts): string {
  const letters = `replaceRegexpAll(${arg(call, 0)}, '[^A-Za-z]', '')`;
  const codes = `translate(upper(${letters}), 'AEIOUYHWBFPVCGJKQSXZDTLMNR', '00000000111122222222334556')`;
  let kept = `concat(left(${codes}, 1), replaceAll(substring(${codes}, 2), '0', ''))`;
  for (const digit of '123456') kept = `replaceRegexpAll(${kept}, '${digit}+', '${digit}')`;
  return `if(${letters} = '', '', concat(left(${letters}, 1), rightPad(substring(${kept}, 2, 3), 3, '0')))`;
}

function initcap(call: CallParts): string {
  const value = arg(call, 0);
  const delimiters = optionalArg(call, 1);
  const chars = characters(value);
  const isDelimiter = (char: string) =>
    delimiters === undefined ? `(match(${char}, ${quoted(`^${WHITESPACE_CLASS}$`)}) OR position(${quoted(INITCAP_DELIMITERS)}, ${char}) > 0)` : `(position(${delimiters}, ${char}) > 0)`;
  const each = `if(${isDelimiter('sawmill_c')}, sawmill_c, if(sawmill_n = 1 OR ${isDelimiter(`${chars}[sawmill_n - 1]`)}, upperUTF8(sawmill_c), lowerUTF8(sawmill_c)))`;
  const result = `arrayStringConcat(arrayMap((sawmill_c, sawmill_n) -> ${each}, ${chars}, arrayEnumerate(${chars})))`;
  return nullIfAnyNull(delimiters === undefined ? [value] : [value, delimiters], result);
}

const mode = (call: CallParts) => {
  const raw = call.raw[1];
  return raw?.kind === 'string' ? raw.value.toUpperCase() : 'NFC';
};

/** ICU's full case folding, which BigQuery applies after normalizing: lower, upper, lower again (ß to ss). */
const caseFold = (value: string) => `lowerUTF8(upperUTF8(lowerUTF8(${value})))`;

const translate: Emitter = (call) => {
  const bytes = isBytes(call);
  const [value, from, to] = [arg(call, 0), arg(call, 1), arg(call, 2)];
  const chars = characters(from, bytes);
  const duplicated = `length(arrayDistinct(${chars})) < length(${chars})`;
  const message = bytes ? 'Duplicate byte in TRANSLATE source bytes' : 'Duplicate character in TRANSLATE source characters';
  return guarded(call, duplicated, message, `${bytes ? 'translate' : 'translateUTF8'}(${value}, ${from}, ${to})`);
};

/** A character class of `text`'s characters for RE2. */
const characterClass = (text: string) => `[${Array.from(text, (char) => (/[\\\]\[^-]/.test(char) ? `\\${char}` : char)).join('')}]`;

/**
 * TRIM/LTRIM/RTRIM: ClickHouse's trim removes bytes, so a STRING's set (default: Unicode
 * whitespace) becomes a character class; BYTES keep ClickHouse's byte trim.
 */
const trim =
  (side: 'BOTH' | 'LEADING' | 'TRAILING'): Emitter =>
  (call) => {
    const value = arg(call, 0);
    if (isBytes(call)) return `trim(${side} ${arg(call, 1)} FROM ${value})`;
    const set = call.args.length === 1 ? '' : literalText(call.raw[1]);
    if (set === undefined) {
      if (call.raw[1]?.kind === 'null') return 'NULL';
      throw invalidSql('TRIM, LTRIM and RTRIM need a literal set of characters on ClickHouse');
    }
    if (set === '' && call.args.length > 1) return value;
    if (/^[\x20-\x7e]*$/.test(set) && set !== '') return `trim(${side} ${arg(call, 1)} FROM ${value})`;
    const chars = set === '' ? WHITESPACE_CLASS : characterClass(set);
    const pattern = side === 'BOTH' ? `^${chars}+|${chars}+$` : side === 'LEADING' ? `^${chars}+` : `${chars}+$`;
    return `replaceRegexpAll(${value}, ${quoted(pattern)}, '')`;
  };

const split: Emitter = (call) => {
  const value = arg(call, 0);
  const delimiter = call.args.length === 1 ? ',' : literalText(call.raw[1]);
  if (delimiter === undefined) {
    if (call.raw[1]?.kind === 'null') return 'CAST([] AS Array(String))';
    throw invalidSql('SPLIT needs a literal delimiter on ClickHouse');
  }
  // ClickHouse has no NULL array: BigQuery's NULL goes out as [] anyway.
  if (call.raw[0]?.kind === 'null') return `CAST([] AS Array(String))`;
  // An empty delimiter splits into characters (bytes for BYTES); an empty value is one empty part.
  if (delimiter === '') return `if(${value} = '', [''], ${characters(value, isBytes(call))})`;
  return `splitByString(${call.args.length === 1 ? "','" : arg(call, 1)}, ${value})`;
};

export const STRING: Renderings<typeof STRING_FUNCTIONS> = {
  ascii: (call) => {
    const code = `toInt64(ascii(${arg(call, 0)}))`;
    return isBytes(call) ? code : guarded(call, `${code} > 127`, 'Argument to ASCII is not a structurally valid ASCII string', code);
  },
  byte_length: (call) => `toInt64(length(${arg(call, 0)}))`,
  char_length: int64((call) => `lengthUTF8(${arg(call, 0)})`),
  character_length: int64((call) => `lengthUTF8(${arg(call, 0)})`),
  chr: (call) => {
    const point = int(arg(call, 0));
    return guarded(call, invalidCodePoint(point), 'Invalid codepoint', utf8Char(point));
  },
  code_points_to_bytes: (call) => {
    const list = `CAST(${arg(call, 0)} AS Array(Nullable(Int64)))`;
    const bytes = `arrayStringConcat(arrayMap(sawmill_b -> char(assumeNotNull(sawmill_b)), ${list}))`;
    return `if(arrayExists(sawmill_b -> isNull(sawmill_b), ${list}), NULL, ${guarded(call, `arrayExists(sawmill_b -> sawmill_b < 0 OR sawmill_b > 255, ${list})`, 'Invalid codepoint', bytes)})`;
  },
  code_points_to_string: (call) => {
    const list = `CAST(${arg(call, 0)} AS Array(Nullable(Int64)))`;
    const text = `arrayStringConcat(arrayMap(sawmill_c -> ${utf8Char('toInt64(assumeNotNull(sawmill_c))')}, ${list}))`;
    const bad = `arrayExists(sawmill_c -> ${invalidCodePoint('toInt64(assumeNotNull(sawmill_c))')}, ${list})`;
    return `if(arrayExists(sawmill_c -> isNull(sawmill_c), ${list}), NULL, ${guarded(call, bad, 'Invalid codepoint', text)})`;
  },
  concat: PORTABLE_EMITTERS.concat,
  contains_substr: containsSubstr,
  edit_distance: (call) => {
    const distance = `toInt64(${isBytes(call) ? 'editDistance' : 'editDistanceUTF8'}(${arg(call, 0)}, ${arg(call, 1)}))`;
    const max = call.named.max_distance;
    if (max === undefined) return distance;
    return nullIfAnyNull([max], guarded(call, `${int(max)} < 0`, 'max_distance must be non-negative', `least(${distance}, ${int(max)})`));
  },
  ends_with: (call) => `endsWith(${arg(call, 0)}, ${arg(call, 1)})`,
  format,
  initcap,
  instr,
  left: side('left'),
  length: (call) => `toInt64(${isBytes(call) ? 'length' : 'lengthUTF8'}(${arg(call, 0)}))`,
  lower: (call) => `${isBytes(call) ? 'lower' : 'lowerUTF8'}(${arg(call, 0)})`,
  lpad: pad('leftPad'),
  ltrim: trim('LEADING'),
  normalize: (call) => `normalizeUTF8${mode(call)}(${arg(call, 0)})`,
  normalize_and_casefold: (call) => caseFold(`normalizeUTF8${mode(call)}(${arg(call, 0)})`),
  octet_length: (call) => `toInt64(length(${arg(call, 0)}))`,
  ...REGEXP,
  repeat: (call) => {
    const count = int(arg(call, 1));
    const repeated = `repeat(${arg(call, 0)}, toUInt64(greatest(${count}, 0)))`;
    const tooLarge = guarded(call, `toFloat64(length(${arg(call, 0)})) * ${count} > ${MAX_STRING_OUTPUT_BYTES}`, outputTooLarge('repeat'), repeated);
    return nullIfAnyNull([arg(call, 0), count], guarded(call, `${count} < 0`, 'Second argument (repeat count) for REPEAT cannot be negative', tooLarge));
  },
  replace: (call) => `replaceAll(${arg(call, 0)}, ${arg(call, 1)}, ${arg(call, 2)})`,
  reverse: (call) => `${isBytes(call) ? 'reverse' : 'reverseUTF8'}(${arg(call, 0)})`,
  right: side('right'),
  rpad: pad('rightPad'),
  rtrim: trim('TRAILING'),
  soundex,
  split,
  split_substr: splitSubstr,
  starts_with: (call) => `startsWith(${arg(call, 0)}, ${arg(call, 1)})`,
  strpos: (call) => `toInt64(${isBytes(call) ? 'position' : 'positionUTF8'}(${arg(call, 0)}, ${arg(call, 1)}))`,
  substr,
  substring: substr,
  to_code_points: (call) =>
    isBytes(call) ? `arrayMap(sawmill_b -> toInt64(reinterpretAsUInt8(sawmill_b)), ${characters(arg(call, 0), true)})` : `arrayMap(sawmill_c -> ${codePoint('sawmill_c')}, ${characters(arg(call, 0))})`,
  translate,
  trim: trim('BOTH'),
  unicode: (call) => `if(${arg(call, 0)} = '', toInt64(0), ${codePoint(arg(call, 0))})`,
  upper: (call) => `${isBytes(call) ? 'upper' : 'upperUTF8'}(${arg(call, 0)})`,
};
