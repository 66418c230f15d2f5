/**
 * DuckDB renderings of BigQuery's string functions. DuckDB's string functions take no BLOB: BYTES
 * go through their hex text (two characters a byte, so positions and lengths double) or through
 * the JavaScript functions of string-udfs.ts.
 */

import { arg, argType, optionalArg, PORTABLE_EMITTERS, same, type CallParts, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import { INITCAP_DELIMITERS, type STRING_FUNCTIONS } from '../../../sql/functions/families/string.ts';
import { WHITESPACE_CLASS } from '../../../sql/functions/regexp.ts';
import { MAX_STRING_OUTPUT_BYTES, outputTooLarge } from '../../../sql/output-limits.ts';
import { padding, repeat, replace } from '../bounded-functions.ts';
import { format } from './format.ts';
import { REGEXP } from './regexp.ts';
import { containsSubstr } from './search.ts';
import { fail, literal } from './shared.ts';

const isBytes = (call: CallParts, index = 0) => argType(call, index) === 'BYTES';
const bigint = (value: string) => `CAST(${value} AS BIGINT)`;

/** `value`, or BigQuery's error where `failing` holds (NULL under SAFE.). */
const unless = (call: CallParts, failing: string, message: string, value: string) => `(CASE WHEN ${failing} THEN ${fail(call, message)} ELSE ${value} END)`;

/** The 1-based start SUBSTR reads from: 0 is 1, a negative one counts from the end (clamped to the first). */
const substrStart = (position: string, length: string) =>
  `(CASE WHEN ${position} > 0 THEN ${position} WHEN ${position} = 0 THEN 1 ELSE greatest(${length} + ${position} + 1, 1) END)`;

/** SUBSTR/SUBSTRING: of a STRING in characters, of BYTES in bytes (over their hex text). */
const substr: Emitter = (call) => {
  const [value, position] = [arg(call, 0), bigint(arg(call, 1))];
  const count = optionalArg(call, 2);
  // A NULL position is NULL (greatest() would read it as absent).
  const check = (sql: string) =>
    `(CASE WHEN ${position} IS NULL THEN NULL ELSE ${count === undefined ? sql : unless(call, `${bigint(count)} < 0`, 'Third argument in SUBSTR() cannot be negative', sql)} END)`;
  if (isBytes(call)) {
    const start = `(2 * ${substrStart(position, `octet_length(${value})`)} - 1)`;
    return check(`unhex(substring(hex(${value}), ${start}${count === undefined ? '' : `, 2 * ${bigint(count)}`}))`);
  }
  return check(`substring(${value}, ${substrStart(position, `length(${value})`)}${count === undefined ? '' : `, ${bigint(count)}`})`);
};

/** LEFT/RIGHT refuse a negative length, as BigQuery does (DuckDB counts it from the other end). */
const side =
  (name: 'left' | 'right'): Emitter =>
  (call) => {
    const [value, count] = [arg(call, 0), bigint(arg(call, 1))];
    const taken = isBytes(call) ? `unhex(${name}(hex(${value}), 2 * ${count}))` : `${name}(${value}, ${count})`;
    return unless(call, `${count} < 0`, `Second argument in ${name.toUpperCase()}() cannot be negative`, taken);
  };

/**
 * LPAD/RPAD: a negative length and an empty pattern are errors; BYTES pad their hex text, where
 * every length is even, so the pattern's bytes stay whole.
 */
const pad =
  (name: 'lpad' | 'rpad'): Emitter =>
  (call) => {
    const [value, length, pattern] = [arg(call, 0), bigint(arg(call, 1)), optionalArg(call, 2)];
    const errors = [
      `WHEN ${length} < 0 THEN ${fail(call, 'Second argument (output size) for LPAD/RPAD cannot be negative')}`,
      ...(pattern === undefined ? [] : [`WHEN ${isBytes(call) ? 'octet_length' : 'length'}(${pattern}) = 0 THEN ${fail(call, 'Third argument (pad pattern) for LPAD/RPAD cannot be empty')}`]),
    ];
    if (!isBytes(call)) return `(CASE ${errors.join(' ')} ELSE ${padding(name)(call)} END)`;
    const padded = `unhex(${name}(hex(${value}), CAST(2 * ${length} AS INTEGER), ${pattern === undefined ? "'20'" : `hex(${pattern})`}))`;
    return `(CASE ${errors.join(' ')} WHEN ${length} > ${MAX_STRING_OUTPUT_BYTES} THEN ${fail(call, outputTooLarge(name))} ELSE ${padded} END)`;
  };

/** Every 1-based position where `needle` starts in `value` (overlapping), in characters or bytes. */
function occurrences(call: CallParts): string {
  const [value, needle] = [arg(call, 0), arg(call, 1)];
  if (isBytes(call)) {
    const [haystack, sought] = [`hex(${value})`, `hex(${needle})`];
    return `list_filter(range(1, octet_length(${value}) - octet_length(${needle}) + 2), lambda sawmill_i: substring(${haystack}, 2 * sawmill_i - 1, 2 * octet_length(${needle})) = ${sought})`;
  }
  return `list_filter(range(1, length(${value}) - length(${needle}) + 2), lambda sawmill_i: substring(${value}, sawmill_i, length(${needle})) = ${needle})`;
}

/**
 * INSTR(value, search[, position[, occurrence]]): the occurrence-th start (overlapping matches
 * count) at or after `position`, or, for a negative position, at or before that many characters
 * from the end, counting backwards; 0 if there is none.
 */
const instr: Emitter = (call) => {
  const [value, needle] = [arg(call, 0), arg(call, 1)];
  if (call.args.length === 2 && !isBytes(call)) return bigint(`instr(${value}, ${needle})`);
  const position = bigint(optionalArg(call, 2) ?? '1');
  const occurrence = bigint(optionalArg(call, 3) ?? '1');
  const nulls = [value, needle, position, occurrence].map((part) => `${part} IS NULL`).join(' OR ');
  const length = isBytes(call) ? `octet_length(${value})` : `length(${value})`;
  const found = `(CASE WHEN ${position} > 0 THEN list_filter(${occurrences(call)}, lambda sawmill_p: sawmill_p >= ${position}) ELSE list_reverse(list_filter(${occurrences(call)}, lambda sawmill_p: sawmill_p <= ${length} + ${position} + 1)) END)`;
  return (
    `(CASE WHEN ${nulls} THEN NULL WHEN ${position} = 0 THEN ${fail(call, 'Position must be non-zero')} WHEN ${occurrence} <= 0 THEN ${fail(call, 'Occurrence must be positive')}` +
    ` ELSE coalesce(${found}[${occurrence}], 0) END)`
  );
};

/**
 * SPLIT_SUBSTR(value, delimiter, start[, count]): `count` parts (all by default) from the
 * 1-based part `start` (0 reads as 1, a negative one counts from the end, clamped to the first),
 * joined again by the delimiter.
 */
function splitSubstr(call: CallParts): string {
  const [value, delimiter, start] = [arg(call, 0), arg(call, 1), bigint(arg(call, 2))];
  const parts = `string_split(${value}, ${delimiter})`;
  const first = `(CASE WHEN ${start} > 0 THEN ${start} WHEN ${start} = 0 THEN 1 ELSE greatest(len(${parts}) + ${start} + 1, 1) END)`;
  const count = call.args[3] === undefined ? `len(${parts})` : bigint(call.args[3]);
  const nulls = [value, delimiter, start, count].map((part) => `${part} IS NULL`).join(' OR ');
  return `(CASE WHEN ${nulls} THEN NULL WHEN ${count} < 0 THEN ${fail(call, 'SPLIT_SUBSTR count cannot be negative')} ELSE array_to_string(${parts}[${first} : ${first} + ${count} - 1], ${delimiter}) END)`;
}

/** A code point as text: BigQuery refuses surrogates and values outside Unicode. */
const codePointText = (call: CallParts, point: string) =>
  unless(call, `${point} < 0 OR ${point} > 1114111 OR ${point} BETWEEN 55296 AND 57343`, 'Invalid codepoint', `chr(CAST(${point} AS INTEGER))`);

/** NULL when the list or one of its elements is NULL, as BigQuery's CODE_POINTS_TO_* are. */
const wholeList = (list: string, value: string) => `(CASE WHEN ${list} IS NULL OR list_count(${list}) < len(${list}) THEN NULL ELSE ${value} END)`;

/**
 * SOUNDEX as BigQuery computes it: ASCII letters only; the first kept as written, then the codes
 * of the others (vowels, H, W and Y none) that differ from the last code kept, three in all.
 */
function soundex(call: CallParts): string {
  const letters = `regexp_replace(${arg(call, 0)}, '[^A-Za-z]', '', 'g')`;
  const codes = `translate(upper(${letters}), 'AEIOUYHWBFPVCGJKQSXZDTLMNR', '00000000111122222222334556')`;
  let kept = `left(${codes}, 1) || replace(substring(${codes}, 2), '0', '')`;
  for (const digit of '123456') kept = `regexp_replace(${kept}, '${digit}+', '${digit}', 'g')`;
  return `(CASE WHEN ${letters} = '' THEN '' ELSE left(${letters}, 1) || rpad(substring(${kept}, 2, 3), 3, '0') END)`;
}

/** INITCAP: each character after a delimiter, and the first, in upper case, the others in lower case; delimiters stay. */
function initcap(call: CallParts): string {
  const value = arg(call, 0);
  const delimiters = optionalArg(call, 1);
  const chars = `string_split(${value}, '')`;
  const isDelimiter = (char: string) =>
    delimiters === undefined
      ? `(regexp_matches(${char}, ${literal(`^${WHITESPACE_CLASS}$`)}) OR contains(${literal(INITCAP_DELIMITERS)}, CAST(${char} AS VARCHAR)))`
      : `contains(${delimiters}, CAST(${char} AS VARCHAR))`;
  const each = `(CASE WHEN ${isDelimiter('sawmill_c')} THEN sawmill_c WHEN sawmill_n = 1 OR ${isDelimiter(`${chars}[sawmill_n - 1]`)} THEN upper(sawmill_c) ELSE lower(sawmill_c) END)`;
  const result = `array_to_string(list_transform(${chars}, lambda sawmill_c, sawmill_n: ${each}), '')`;
  return delimiters === undefined ? result : `(CASE WHEN ${delimiters} IS NULL THEN NULL ELSE ${result} END)`;
}

/** NORMALIZE's mode, a keyword the analyzer passed on as a literal (NFC by default). */
const mode = (call: CallParts) => {
  const raw = call.raw[1];
  return raw?.kind === 'string' ? raw.value.toUpperCase() : 'NFC';
};

/** TRANSLATE refuses a character listed twice in its source characters. */
const translate: Emitter = (call) => {
  const [value, from, to] = [arg(call, 0), arg(call, 1), arg(call, 2)];
  if (isBytes(call)) return `sawmill_bytes_translate(${value}, ${from}, ${to})`;
  const duplicated = `len(list_distinct(string_split(${from}, ''))) < length(${from})`;
  return unless(call, duplicated, 'Duplicate character in TRANSLATE source characters', `translate(${value}, ${from}, ${to})`);
};

/**
 * TRIM/LTRIM/RTRIM: without a set, Unicode's whitespace (DuckDB's trim removes spaces only);
 * BYTES take a set of bytes to remove.
 */
const trim =
  (name: 'trim' | 'ltrim' | 'rtrim', side: number): Emitter =>
  (call) => {
    if (isBytes(call)) return `sawmill_bytes_trim(${arg(call, 0)}, ${arg(call, 1)}, ${side})`;
    if (call.args.length > 1) return same(name)(call);
    const pattern = side === 0 ? `^${WHITESPACE_CLASS}+|${WHITESPACE_CLASS}+$` : side === 1 ? `^${WHITESPACE_CLASS}+` : `${WHITESPACE_CLASS}+$`;
    return `regexp_replace(${arg(call, 0)}, ${literal(pattern)}, '', 'g')`;
  };

/** SPLIT: a NULL delimiter gives NULL (DuckDB's string_split splits into characters). */
const split: Emitter = (call) => {
  if (isBytes(call)) return `sawmill_bytes_split(${arg(call, 0)}, ${arg(call, 1)})`;
  const separator = optionalArg(call, 1) ?? "','";
  const parts = `string_split(${arg(call, 0)}, ${separator})`;
  return call.raw[1] === undefined || call.raw[1].kind === 'string' ? parts : `(CASE WHEN ${separator} IS NOT NULL THEN ${parts} END)`;
};

const strpos: Emitter = (call) => (isBytes(call) ? instr(call) : bigint(`strpos(${arg(call, 0)}, ${arg(call, 1)})`));

const hexTest =
  (name: 'starts_with' | 'ends_with'): Emitter =>
  (call) =>
    isBytes(call) ? `${name}(hex(${arg(call, 0)}), hex(${arg(call, 1)}))` : same(name)(call);

export const STRING: Renderings<typeof STRING_FUNCTIONS> = {
  ascii: (call) => {
    if (isBytes(call)) return `coalesce(sawmill_bytes_code_points(${arg(call, 0)})[1], 0)`;
    const code = bigint(`ascii(${arg(call, 0)})`);
    return unless(call, `${code} > 127`, 'Argument to ASCII is not a structurally valid ASCII string', code);
  },
  byte_length: (call) => (isBytes(call) ? `octet_length(${arg(call, 0)})` : `strlen(${arg(call, 0)})`),
  char_length: same('length'),
  character_length: same('length'),
  chr: (call) => codePointText(call, bigint(arg(call, 0))),
  code_points_to_bytes: (call) => {
    const list = arg(call, 0);
    const bytes = `unhex(array_to_string(list_transform(${list}, lambda sawmill_b: printf('%02x', sawmill_b)), ''))`;
    return wholeList(list, unless(call, `len(list_filter(${list}, lambda sawmill_b: sawmill_b < 0 OR sawmill_b > 255)) > 0`, 'Invalid codepoint', bytes));
  },
  code_points_to_string: (call) => {
    const list = arg(call, 0);
    const bad = `len(list_filter(${list}, lambda sawmill_c: sawmill_c < 0 OR sawmill_c > 1114111 OR sawmill_c BETWEEN 55296 AND 57343)) > 0`;
    const text = `array_to_string(list_transform(${list}, lambda sawmill_c: chr(CAST(sawmill_c AS INTEGER))), '')`;
    return wholeList(list, unless(call, bad, 'Invalid codepoint', text));
  },
  concat: PORTABLE_EMITTERS.concat,
  contains_substr: containsSubstr,
  edit_distance: (call) => {
    const max = call.named.max_distance ?? '9223372036854775807';
    return `sawmill_${isBytes(call) ? 'bytes_' : ''}edit_distance(${arg(call, 0)}, ${arg(call, 1)}, ${bigint(max)})`;
  },
  ends_with: hexTest('ends_with'),
  format,
  initcap,
  instr,
  left: side('left'),
  length: (call) => (isBytes(call) ? `octet_length(${arg(call, 0)})` : `length(${arg(call, 0)})`),
  lower: (call) => (isBytes(call) ? `sawmill_bytes_case(${arg(call, 0)}, 0)` : `lower(${arg(call, 0)})`),
  lpad: pad('lpad'),
  ltrim: trim('ltrim', 1),
  normalize: (call) => (mode(call) === 'NFC' ? `nfc_normalize(${arg(call, 0)})` : `sawmill_normalize(${arg(call, 0)}, '${mode(call)}')`),
  normalize_and_casefold: (call) => `sawmill_normalize_casefold(${arg(call, 0)}, '${mode(call)}')`,
  octet_length: (call) => (isBytes(call) ? `octet_length(${arg(call, 0)})` : `strlen(${arg(call, 0)})`),
  ...REGEXP,
  repeat: (call) => {
    const [value, count] = [arg(call, 0), bigint(arg(call, 1))];
    const negative = `${count} < 0`;
    const message = 'Second argument (repeat count) for REPEAT cannot be negative';
    if (!isBytes(call)) return unless(call, negative, message, repeat(call));
    return unless(call, negative, message, unless(call, `CAST(octet_length(${value}) AS DOUBLE) * ${count} > ${MAX_STRING_OUTPUT_BYTES}`, outputTooLarge('repeat'), `repeat(${value}, ${count})`));
  },
  replace: (call) => (isBytes(call) ? `sawmill_bytes_replace(${arg(call, 0)}, ${arg(call, 1)}, ${arg(call, 2)})` : replace(call)),
  reverse: (call) => (isBytes(call) ? `sawmill_bytes_reverse(${arg(call, 0)})` : `reverse(${arg(call, 0)})`),
  right: side('right'),
  rpad: pad('rpad'),
  rtrim: trim('rtrim', 2),
  soundex,
  split,
  split_substr: splitSubstr,
  starts_with: hexTest('starts_with'),
  strpos,
  substr,
  substring: substr,
  to_code_points: (call) =>
    isBytes(call)
      ? `sawmill_bytes_code_points(${arg(call, 0)})`
      : `list_transform(list_filter(string_split(${arg(call, 0)}, ''), lambda sawmill_c: sawmill_c <> ''), lambda sawmill_c: CAST(unicode(sawmill_c) AS BIGINT))`,
  translate,
  trim: trim('trim', 0),
  unicode: (call) => `(CASE WHEN ${arg(call, 0)} = '' THEN 0 ELSE CAST(unicode(${arg(call, 0)}) AS BIGINT) END)`,
  upper: (call) => (isBytes(call) ? `sawmill_bytes_case(${arg(call, 0)}, 1)` : `upper(${arg(call, 0)})`),
};
