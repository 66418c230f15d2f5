/**
 * ClickHouse's rendering of every catalog entry (src/sql/functions/): a missing one is a compile
 * error, and an entry ClickHouse cannot give BigQuery's answer for says why (`unsupported`).
 */

import type { FunctionRenderings } from '../../../sql/emitters.ts';
import type { FunctionName } from '../../../sql/functions/index.ts';
import { AGGREGATE, APPROXIMATE_AGGREGATE, STATISTICAL } from './aggregate.ts';
import { ARRAY } from './array.ts';
import { BIT, DEBUGGING, ENCODING, HASH, UTILITY } from './bytes.ts';
import { INTERNAL } from './internal.ts';
import { JSON } from './json.ts';
import { stringOf } from './casts.ts';
import { CONVERSION } from './conversion.ts';
import { INTERVAL, OPERATORS, TIME_SERIES } from './interval.ts';
import { CONDITIONAL, MATHEMATICAL } from './math.ts';
import { NET } from './net.ts';
import { SEARCH } from './search.ts';
import { STRING } from './string.ts';
import { DATE, DATETIME, TIME, TIMESTAMP_RENDERINGS } from './time.ts';
import { NAVIGATION, NUMBERING } from './window.ts';

export { intervalUnit } from './time.ts';

/**
 * Functions whose ClickHouse rendering, called with SAFE., gives NULL instead of every error
 * BigQuery raises (CallParts.safe); ClickHouse cannot catch its own errors, so SAFE. of any other
 * function is refused.
 */
export const SAFE_FUNCTIONS: ReadonlySet<FunctionName> = new Set<FunctionName>([
  ...(Object.keys(MATHEMATICAL) as FunctionName[]),
  'net.host',
  'net.ip_from_string',
  'net.ip_net_mask',
  'net.ip_to_string',
  'net.ip_trunc',
  'net.ipv4_from_int64',
  'net.ipv4_to_int64',
  'net.safe_ip_from_string',
  'from_hex',
  'to_hex',
  'to_base64',
  'to_base32',
  'safe_convert_bytes_to_string',
  'md5',
  'sha1',
  'sha256',
  'sha512',
  'farm_fingerprint',
  'array_concat',
  'array_first',
  'array_includes',
  'array_includes_all',
  'array_includes_any',
  'array_is_distinct',
  'array_last',
  'array_length',
  'array_reverse',
  'array_slice',
  'array_to_string',
  'generate_date_array',
  // Their run-time errors (a query parameter's) are the rendering's own guards; CONTAINS_SUBSTR has none.
  'search',
  'contains_substr',
  // JSON: every runtime error is the rendering's own check (render.ts failIf), or there is none.
  'json_extract',
  'json_extract_scalar',
  'json_extract_array',
  'json_extract_string_array',
  'json_query',
  'json_query_array',
  'json_value',
  'json_value_array',
  'json_type',
  'lax_bool',
  'lax_int64',
  'lax_float64',
  'lax_string',
  'bool',
  'int64',
  'float64',
  'string',
  'parse_json',
  'json_object',
  'json_keys',
  // Date and time functions whose renderings give NULL for each error they check (the rest raise none BigQuery raises).
  'date',
  'datetime',
  'time',
  'parse_date',
  'parse_datetime',
  'parse_time',
  'parse_timestamp',
  'parse_numeric',
  'parse_bignumeric',
  'date_bucket',
  'datetime_bucket',
  'timestamp_bucket',
  // The string functions whose renderings give NULL under SAFE. for every error BigQuery raises.
  ...([
    'ascii', 'byte_length', 'char_length', 'character_length', 'chr', 'code_points_to_bytes', 'code_points_to_string', 'concat', 'ends_with', 'format',
    'initcap', 'instr', 'left', 'length', 'lower', 'lpad', 'ltrim', 'octet_length', 'regexp_contains', 'regexp_extract', 'regexp_extract_all', 'regexp_instr',
    'regexp_replace', 'regexp_substr', 'repeat', 'replace', 'reverse', 'right', 'rpad', 'rtrim', 'soundex', 'split', 'split_substr', 'starts_with', 'strpos',
    'substr', 'substring', 'to_code_points', 'translate', 'trim', 'unicode', 'upper',
  ] satisfies FunctionName[]),
]);

export const CLICKHOUSE_FUNCTIONS: FunctionRenderings = {
  ...AGGREGATE,
  ...APPROXIMATE_AGGREGATE,
  ...ARRAY,
  ...BIT,
  ...CONDITIONAL,
  ...CONVERSION,
  ...DATE,
  ...DATETIME,
  ...DEBUGGING,
  ...ENCODING,
  ...HASH,
  ...INTERNAL,
  ...INTERVAL,
  ...JSON,
  ...MATHEMATICAL,
  ...NAVIGATION,
  ...NET,
  ...NUMBERING,
  ...OPERATORS,
  ...STATISTICAL,
  ...SEARCH,
  ...STRING,
  ...TIME,
  ...TIME_SERIES,
  ...UTILITY,
  ...TIMESTAMP_RENDERINGS,
  // STRING of a date or time value is CAST's text; of JSON, the JSON family's.
  string: stringOf(JSON.string),
};
