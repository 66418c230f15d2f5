/** BigQuery's JSON functions. */

import { scalar, type Catalog } from '../entry.ts';

const json = (signatures: string[]) => scalar('json', signatures);

export const JSON_FUNCTIONS = {
  json_extract: json(['(STRING, [STRING]) -> STRING']),
  json_extract_array: json(['(STRING, [STRING]) -> ARRAY<STRING>']),
  json_extract_scalar: json(['(STRING, [STRING]) -> STRING']),
  json_query: json(['(STRING, [STRING]) -> STRING']),
  json_query_array: json(['(STRING, [STRING]) -> ARRAY<STRING>']),
  json_value: json(['(STRING, [STRING]) -> STRING']),
} satisfies Catalog;
