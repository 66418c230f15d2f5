/**
 * DuckDB's rendering of every catalog entry (src/sql/functions/): a missing one is a compile
 * error, and an entry DuckDB cannot give BigQuery's answer for says why (`unsupported`).
 */

import type { FunctionRenderings } from '../../../sql/emitters.ts';
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
import { DATE, DATETIME, TIME, TIMESTAMP } from './time.ts';
import { NAVIGATION, NUMBERING } from './window.ts';

export { isTimestampTz, sourceTimestampRefs } from './time.ts';

export const DUCKDB_FUNCTIONS: FunctionRenderings = {
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
  ...TIMESTAMP,
  // STRING of a date or time value is CAST's text; of JSON, the JSON family's.
  string: stringOf(JSON.string),
};
