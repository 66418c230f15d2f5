/** ClickHouse renderings of BigQuery's JSON functions. */

import { arg, optionalArg, unsupported, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { JSON_FUNCTIONS } from '../../../sql/functions/families/json.ts';

const scalarText: Emitter = (call) => `JSON_VALUE(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"})`;

export const JSON: Renderings<typeof JSON_FUNCTIONS> = {
  json_extract: unsupported('JSON_EXTRACT is not mapped to ClickHouse yet'),
  json_extract_array: unsupported('JSON_EXTRACT_ARRAY is not mapped to ClickHouse yet'),
  json_extract_scalar: scalarText,
  json_query: unsupported('JSON_QUERY is not mapped to ClickHouse yet'),
  json_query_array: unsupported('JSON_QUERY_ARRAY is not mapped to ClickHouse yet'),
  json_value: scalarText,
};
