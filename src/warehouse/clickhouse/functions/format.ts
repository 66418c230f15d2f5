/**
 * FORMAT on ClickHouse: the primitives src/sql/format-sql.ts prints BigQuery's FORMAT with, and
 * %t/%T of every type ClickHouse stores (BigQuery's readable text and SQL literal of a value,
 * arrays and tuples recursively), as ZetaSQL's StringFormatEvaluator writes them.
 */

import type { SqlType } from '../../../sql/catalog.ts';
import type { CallParts, Emitter } from '../../../sql/emitters.ts';
import { JSON } from './json.ts';
import { AFTER_HEX_ESCAPE, formatSql, jsonTextCall, type FormatDialect } from '../../../sql/format-sql.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { characters, codePoint, quoted } from './shared.ts';

let depth = 0;
const lambda = (body: (name: string) => string) => {
  const name = `sawmill_v${++depth}`;
  try {
    return `${name} -> ${body(name)}`;
  } finally {
    depth--;
  }
};

const fraction = (micros: string) =>
  `multiIf(${micros} = 0, '', ${micros} % 1000 = 0, concat('.', leftPad(toString(intDiv(${micros}, 1000)), 3, '0')), concat('.', leftPad(toString(${micros}), 6, '0')))`;

const subsecond = (epochMicros: string) => `((${epochMicros} % 1000000 + 1000000) % 1000000)`;

const quoteFor = (hasDouble: string, hasSingle: string) => `if(${hasDouble} AND NOT ${hasSingle}, '\\'', '"')`;

/** A STRING as ZetaSQL's literal (%T), as the DuckDB rendering writes it. */
function stringLiteral(value: string): string {
  const quote = quoteFor(`position(${value}, '"') > 0`, `position(${value}, '\\'') > 0`);
  const chars = characters(value);
  const control = (char: string) => `(${codePoint(char)} < 32 AND ${char} NOT IN ('\\t', '\\n', '\\r') OR ${char} = '\\x7F')`;
  const hexEscape = (char: string) => `concat('\\\\x', lower(hex(${char})))`;
  const each =
    `multiIf(sawmill_c = '\\\\', '\\\\\\\\', sawmill_c = '\\n', '\\\\n', sawmill_c = '\\r', '\\\\r', sawmill_c = '\\t', '\\\\t',` +
    ` sawmill_c = ${quote}, concat('\\\\', sawmill_c), ${control('sawmill_c')}, ${hexEscape('sawmill_c')},` +
    ` match(sawmill_c, '^[0-9a-fA-F]$') AND match(leftUTF8(${value}, sawmill_n - 1), ${quoted(AFTER_HEX_ESCAPE)}), ${hexEscape('sawmill_c')}, sawmill_c)`;
  return `concat(${quote}, arrayStringConcat(arrayMap((sawmill_c, sawmill_n) -> ${each}, ${chars}, arrayEnumerate(${chars}))), ${quote})`;
}

/** BYTES as ZetaSQL escapes them: printable ASCII as is (\\ and the quotes escaped), the rest \xNN. */
function bytesText(value: string, isLiteral: boolean): string {
  const quote = quoteFor(`position(${value}, '"') > 0`, `position(${value}, '\\'') > 0`);
  const code = 'reinterpretAsUInt8(sawmill_b)';
  const escapedQuote = isLiteral ? `sawmill_b = ${quote}` : `${code} IN (34, 39, 96)`;
  const each = `multiIf(${code} < 32 OR ${code} > 126, concat('\\\\x', lower(hex(sawmill_b))), ${code} = 92, '\\\\\\\\', ${escapedQuote}, concat('\\\\', sawmill_b), sawmill_b)`;
  const body = `arrayStringConcat(arrayMap(sawmill_b -> ${each}, ${characters(value, true)}))`;
  return isLiteral ? `concat('b', ${quote}, ${body}, ${quote})` : body;
}

function doubleText(value: string, isLiteral: boolean): string {
  const short = `printf('%.15g', ${value})`;
  const digits = `if(toFloat64OrNull(${short}) = ${value}, ${short}, printf('%.17g', ${value}))`;
  const finite = `if(match(${digits}, '^-?[0-9]+$'), concat(${digits}, '.0'), ${digits})`;
  const special = (text: string) => quoted(isLiteral ? `CAST("${text}" AS FLOAT64)` : text);
  return `multiIf(isNaN(${value}), ${special('nan')}, ${value} = inf, ${special('inf')}, ${value} = -inf, ${special('-inf')}, ${finite})`;
}

/** A JSON value as TO_JSON_STRING writes it (its rendering in json.ts). */
const jsonText = (value: string, pretty: boolean, call: CallParts) => (JSON.to_json_string as Emitter)(jsonTextCall(call, value, pretty));

const typed = (name: string, text: string, isLiteral: boolean) => (isLiteral ? `concat('${name} "', ${text}, '"')` : text);

function dateTimeText(value: string): string {
  return `concat(formatDateTime(${value}, '%Y-%m-%d %H:%i:%S', 'UTC'), ${fraction(subsecond(`toUnixTimestamp64Micro(${value})`))})`;
}

export function scalarText(value: string, name: string, isLiteral: boolean, call: CallParts): string {
  switch (name) {
    case 'STRING':
      return isLiteral ? stringLiteral(value) : value;
    case 'BYTES':
      return bytesText(value, isLiteral);
    case 'INT64':
      return `toString(${value})`;
    case 'BOOL':
      return `if(${value}, 'true', 'false')`;
    case 'FLOAT64':
      return doubleText(value, isLiteral);
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return typed(name, `toString(${value})`, isLiteral);
    case 'DATE':
      return typed('DATE', `toString(${value})`, isLiteral);
    case 'DATETIME':
      return typed('DATETIME', dateTimeText(value), isLiteral);
    case 'TIMESTAMP':
      return typed('TIMESTAMP', `concat(${dateTimeText(value)}, '+00')`, isLiteral);
    case 'JSON': {
      // TO_JSON_STRING writes SQL NULL as null; %t and %T write NULL.
      const text = isLiteral ? `concat('JSON ', ${stringLiteral(jsonText(value, false, call))})` : jsonText(value, false, call);
      return `if(isNull(${value}), NULL, ${text})`;
    }
    default:
      throw invalidSql(`FORMAT %t and %T of ${name} are not supported on ClickHouse`);
  }
}

function valueText(value: string, type: SqlType, isLiteral: boolean, call: CallParts): string {
  switch (type.kind) {
    case 'array': {
      const elements = `arrayMap(${lambda((element) => valueText(element, type.element, isLiteral, call))}, ${value})`;
      return `concat('[', arrayStringConcat(${elements}, ', '), ']')`;
    }
    case 'struct': {
      const fields = type.fields.map((field, index) => valueText(`tupleElement(${value}, ${index + 1})`, field.type, isLiteral, call));
      const open = isLiteral && fields.length < 2 ? "'STRUCT('" : "'('";
      return `if(isNull(${value}), 'NULL', concat(${[open, ...fields.flatMap((field, index) => (index === 0 ? [field] : ["', '", field])), "')'"].join(', ')}))`;
    }
    case 'scalar':
      // ClickHouse reads some NULLs as empty values (splitByString of NULL is []): NULL is checked first.
      return `if(isNull(${value}), 'NULL', ${scalarText(value, type.name, isLiteral, call)})`;
    default:
      return `coalesce(toString(${value}), 'NULL')`;
  }
}

const CLICKHOUSE_FORMAT: FormatDialect = {
  literal: quoted,
  length: (value) => `lengthUTF8(${value})`,
  padLeft: (value, width, fill) => `leftPadUTF8(${value}, toUInt64(${width}), ${fill})`,
  padRight: (value, width, fill) => `rightPadUTF8(${value}, toUInt64(${width}), ${fill})`,
  prefix: (value, count) => `leftUTF8(${value}, toInt64(${count}))`,
  reverse: (value) => `reverseUTF8(${value})`,
  replaceAll: (value, pattern, replacement) => `replaceRegexpAll(${value}, ${quoted(pattern)}, ${quoted(replacement)})`,
  upper: (value) => `upperUTF8(${value})`,
  magnitudeDigits: (value, base) => {
    const number = `toInt64(${value})`;
    if (base === 10) return `replaceOne(toString(${number}), '-', '')`;
    const magnitude = `if(${number} < 0, toUInt64(-(${number} + 1)) + 1, toUInt64(${number}))`;
    return `printf('${base === 8 ? '%o' : '%x'}', ${magnitude})`;
  },
  printf: (conversion, precision, value, alternate) => {
    const flags = alternate ? '#' : '';
    const pattern = /^\d+$/.test(precision) ? quoted(`%${flags}.${precision}${conversion}`) : `concat('%${flags}.', toString(${precision}), '${conversion}')`;
    return `printf(${pattern}, toFloat64(${value}))`;
  },
  decimalFixed: (value, precision) => {
    const text = `toDecimalString(round(abs(${value}), ${precision}), ${precision})`;
    return precision === 0 ? `trim(TRAILING '.' FROM ${text})` : text;
  },
  toDouble: (value) => `toFloat64(${value})`,
  isNan: (value) => `isNaN(${value})`,
  isInfinite: (value) => `isInfinite(${value})`,
  valueText,
  jsonText,
};

export const format: Emitter = (call) => formatSql(call, CLICKHOUSE_FORMAT);
