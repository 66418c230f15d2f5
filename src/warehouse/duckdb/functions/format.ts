/**
 * FORMAT on DuckDB: the primitives src/sql/format-sql.ts prints BigQuery's FORMAT with, and %t/%T
 * of every type (BigQuery's readable text and SQL literal of a value, arrays and structs
 * recursively), as ZetaSQL's StringFormatEvaluator writes them.
 */

import type { SqlType } from '../../../sql/catalog.ts';
import type { CallParts, Emitter } from '../../../sql/emitters.ts';
import { JSON } from './json.ts';
import { AFTER_HEX_ESCAPE, formatSql, jsonTextCall, type FormatDialect } from '../../../sql/format-sql.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { literal } from './shared.ts';

/** Names for lambda parameters, one per nesting level (ARRAY<ARRAY<…>>). */
let depth = 0;
const lambda = (body: (name: string) => string) => {
  const name = `sawmill_v${++depth}`;
  try {
    return `lambda ${name}: ${body(name)}`;
  } finally {
    depth--;
  }
};

/** Seconds fractions as ZetaSQL prints them: none, or 3 or 6 digits. */
const fraction = (micros: string) =>
  `(CASE WHEN ${micros} = 0 THEN '' WHEN ${micros} % 1000 = 0 THEN '.' || lpad(CAST(${micros} // 1000 AS VARCHAR), 3, '0') ELSE '.' || lpad(CAST(${micros} AS VARCHAR), 6, '0') END)`;

/** Microseconds within the second of an epoch-microsecond count (also before 1970). */
const subsecond = (epochMicros: string) => `((${epochMicros} % 1000000 + 1000000) % 1000000)`;

/** The quote ZetaSQL puts around a literal: ' when the text has " and no ', else ". */
const quoteFor = (hasDouble: string, hasSingle: string) => `(CASE WHEN ${hasDouble} AND NOT ${hasSingle} THEN '''' ELSE '"' END)`;

/**
 * A STRING as ZetaSQL's literal (%T): quoted, backslash, \n, \r, \t and the quote escaped, other
 * control characters as \xNN (and a hex digit after one, as C reads on).
 */
function stringLiteral(value: string): string {
  const quote = quoteFor(`contains(${value}, '"')`, `contains(${value}, '''')`);
  const chars = `string_split(${value}, '')`;
  const control = (char: string) => `(unicode(${char}) < 32 AND ${char} NOT IN (chr(9), chr(10), chr(13)) OR unicode(${char}) = 127)`;
  const hexEscape = (char: string) => `'\\x' || printf('%02x', unicode(${char}))`;
  const each =
    `(CASE WHEN sawmill_c = '\\' THEN '\\\\' WHEN sawmill_c = chr(10) THEN '\\n' WHEN sawmill_c = chr(13) THEN '\\r' WHEN sawmill_c = chr(9) THEN '\\t'` +
    ` WHEN sawmill_c = ${quote} THEN '\\' || sawmill_c WHEN ${control('sawmill_c')} THEN ${hexEscape('sawmill_c')}` +
    ` WHEN regexp_matches(sawmill_c, '^[0-9a-fA-F]$') AND regexp_matches(left(${value}, sawmill_n - 1), ${literal(AFTER_HEX_ESCAPE)}) THEN ${hexEscape('sawmill_c')} ELSE sawmill_c END)`;
  // string_split('', '') is [''], not [].
  const body = `(CASE WHEN ${value} = '' THEN '' ELSE array_to_string(list_transform(${chars}, lambda sawmill_c, sawmill_n: ${each}), '') END)`;
  return `(${quote} || ${body} || ${quote})`;
}

/** BYTES as ZetaSQL escapes them: printable ASCII as is (\\ and the quotes escaped), the rest \xNN. */
function bytesText(value: string, isLiteral: boolean): string {
  const codes = `sawmill_bytes_code_points(${value})`;
  const quote = quoteFor(`list_contains(${codes}, 34)`, `list_contains(${codes}, 39)`);
  const escapedQuote = isLiteral ? `chr(CAST(sawmill_b AS INTEGER)) = ${quote}` : 'sawmill_b IN (34, 39, 96)';
  const each =
    `(CASE WHEN sawmill_b < 32 OR sawmill_b > 126 THEN '\\x' || printf('%02x', sawmill_b) WHEN sawmill_b = 92 THEN '\\\\'` +
    ` WHEN ${escapedQuote} THEN '\\' || chr(CAST(sawmill_b AS INTEGER)) ELSE chr(CAST(sawmill_b AS INTEGER)) END)`;
  const body = `array_to_string(list_transform(${codes}, lambda sawmill_b: ${each}), '')`;
  return isLiteral ? `('b' || ${quote} || ${body} || ${quote})` : body;
}

/** A FLOAT64 as ZetaSQL writes it: the shortest of %.15g and %.17g that reads back, with .0 if it looks like an integer. */
function doubleText(value: string, isLiteral: boolean): string {
  const short = `printf('%.15g', ${value})`;
  const digits = `(CASE WHEN CAST(${short} AS DOUBLE) = ${value} THEN ${short} ELSE printf('%.17g', ${value}) END)`;
  const finite = `(CASE WHEN regexp_matches(${digits}, '^-?[0-9]+$') THEN ${digits} || '.0' ELSE ${digits} END)`;
  const special = (text: string) => (isLiteral ? literal(`CAST("${text}" AS FLOAT64)`) : literal(text));
  return `(CASE WHEN isnan(${value}) THEN ${special('nan')} WHEN ${value} = 'inf'::DOUBLE THEN ${special('inf')} WHEN ${value} = '-inf'::DOUBLE THEN ${special('-inf')} ELSE ${finite} END)`;
}

/** `text`, preceded by a type name and quoted (`DATE "2001-05-21"`) for %T. */
/** A JSON value as TO_JSON_STRING writes it (its rendering in json.ts). */
const jsonText = (value: string, pretty: boolean, call: CallParts) => (JSON.to_json_string as Emitter)(jsonTextCall(call, value, pretty));

const typed = (name: string, text: string, isLiteral: boolean) => (isLiteral ? `('${name} "' || ${text} || '"')` : text);

export function scalarText(value: string, name: string, isLiteral: boolean, call: CallParts): string {
  switch (name) {
    case 'STRING':
      return isLiteral ? stringLiteral(value) : value;
    case 'BYTES':
      return bytesText(value, isLiteral);
    case 'INT64':
      return `CAST(${value} AS VARCHAR)`;
    case 'BOOL':
      return `(CASE WHEN ${value} THEN 'true' ELSE 'false' END)`;
    case 'FLOAT64':
      return doubleText(value, isLiteral);
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = `regexp_replace(regexp_replace(CAST(${value} AS VARCHAR), '(\\.[0-9]*?)0+$', '\\1'), '\\.$', '')`;
      return typed(name, text, isLiteral);
    }
    case 'DATE':
      return typed('DATE', `CAST(${value} AS VARCHAR)`, isLiteral);
    case 'DATETIME':
      return typed('DATETIME', `(strftime(${value}, '%Y-%m-%d %H:%M:%S') || ${fraction(subsecond(`epoch_us(${value})`))})`, isLiteral);
    case 'TIMESTAMP': {
      const micros = `epoch_us(${value})`;
      return typed('TIMESTAMP', `(strftime(make_timestamp(${micros}), '%Y-%m-%d %H:%M:%S') || ${fraction(subsecond(micros))} || '+00')`, isLiteral);
    }
    case 'TIME': {
      const part = (unit: string) => `lpad(CAST(${unit}(${value}) AS VARCHAR), 2, '0')`;
      const text = `(${part('hour')} || ':' || ${part('minute')} || ':' || ${part('second')} || ${fraction(`(microsecond(${value}) % 1000000)`)})`;
      return typed('TIME', text, isLiteral);
    }
    case 'JSON': {
      // TO_JSON_STRING writes SQL NULL as null; %t and %T write NULL.
      const text = isLiteral ? `('JSON ' || ${stringLiteral(jsonText(value, false, call))})` : jsonText(value, false, call);
      return `(CASE WHEN ${value} IS NULL THEN NULL ELSE ${text} END)`;
    }
    default:
      throw invalidSql(`FORMAT %t and %T of ${name} are not supported`);
  }
}

function valueText(value: string, type: SqlType, isLiteral: boolean, call: CallParts): string {
  switch (type.kind) {
    case 'array': {
      const elements = `list_transform(${value}, ${lambda((element) => valueText(element, type.element, isLiteral, call))})`;
      return `(CASE WHEN ${value} IS NULL THEN 'NULL' ELSE '[' || array_to_string(${elements}, ', ') || ']' END)`;
    }
    case 'struct': {
      const fields = type.fields.map((field, index) => valueText(`struct_extract_at(${value}, ${index + 1})`, field.type, isLiteral, call));
      const open = isLiteral && fields.length < 2 ? "'STRUCT('" : "'('";
      const body = fields.length === 0 ? '' : ` || ${fields.join(" || ', ' || ")}`;
      return `(CASE WHEN ${value} IS NULL THEN 'NULL' ELSE ${open}${body} || ')' END)`;
    }
    case 'scalar':
      return `coalesce(${scalarText(value, type.name, isLiteral, call)}, 'NULL')`;
    default:
      return `coalesce(CAST(${value} AS VARCHAR), 'NULL')`;
  }
}

const DUCKDB_FORMAT: FormatDialect = {
  literal,
  length: (value) => `length(${value})`,
  padLeft: (value, width, fill) => `lpad(${value}, CAST(${width} AS INTEGER), ${fill})`,
  padRight: (value, width, fill) => `rpad(${value}, CAST(${width} AS INTEGER), ${fill})`,
  prefix: (value, count) => `left(${value}, CAST(${count} AS BIGINT))`,
  reverse: (value) => `reverse(${value})`,
  replaceAll: (value, pattern, replacement) => `regexp_replace(${value}, ${literal(pattern)}, ${literal(replacement)}, 'g')`,
  upper: (value) => `upper(${value})`,
  magnitudeDigits: (value, base) => {
    if (base === 10) return `ltrim(CAST(${value} AS VARCHAR), '-')`;
    const magnitude = `(CASE WHEN ${value} < 0 THEN CAST(-(${value} + 1) AS UBIGINT) + 1 ELSE CAST(${value} AS UBIGINT) END)`;
    return `printf('${base === 8 ? '%o' : '%x'}', ${magnitude})`;
  },
  printf: (conversion, precision, value, alternate) => {
    const flags = alternate ? '#' : '';
    const pattern = /^\d+$/.test(precision) ? literal(`%${flags}.${precision}${conversion}`) : `'%${flags}.' || CAST(${precision} AS VARCHAR) || '${conversion}'`;
    return `printf(${pattern}, ${value})`;
  },
  decimalFixed: (value, precision) =>
    precision <= 9 ? `CAST(CAST(abs(${value}) AS DECIMAL(38, ${precision})) AS VARCHAR)` : `(CAST(abs(${value}) AS VARCHAR) || '${'0'.repeat(precision - 9)}')`,
  toDouble: (value) => `CAST(${value} AS DOUBLE)`,
  isNan: (value) => `isnan(${value})`,
  isInfinite: (value) => `isinf(${value})`,
  valueText,
  jsonText,
};

export const format: Emitter = (call) => formatSql(call, DUCKDB_FORMAT);
