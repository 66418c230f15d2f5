/** DuckDB renderings of BigQuery's JSON functions. */

import { arg, optionalArg, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { JSON_FUNCTIONS } from '../../../sql/functions/families/json.ts';

/** A JSON value at a JSONPath as JSON text, NULL where there is none (JSON_EXTRACT, JSON_QUERY). */
const jsonText: Emitter = (call) => `CAST(json_extract(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"}) AS VARCHAR)`;

/** The elements of a JSON array at a JSONPath, each as JSON text; NULL when it is not an array. */
const jsonArray: Emitter = (call) => {
  const [json, path] = [arg(call, 0), optionalArg(call, 1) ?? "'$'"];
  return `(CASE WHEN json_type(${json}, ${path}) = 'ARRAY' THEN CAST(CAST(json_extract(${json}, ${path}) AS JSON[]) AS VARCHAR[]) END)`;
};

const scalarText: Emitter = (call) => `json_extract_string(${arg(call, 0)}, ${optionalArg(call, 1) ?? "'$'"})`;

export const JSON: Renderings<typeof JSON_FUNCTIONS> = {
  json_extract: jsonText,
  json_extract_array: jsonArray,
  json_extract_scalar: scalarText,
  json_query: jsonText,
  json_query_array: jsonArray,
  json_value: scalarText,
};
