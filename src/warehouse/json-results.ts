/**
 * JSON values in query results. BigQuery's JSON type goes out as JSON (not as a string), in the
 * text BigQuery writes (keys in order, numbers as BigQuery prints them), with integers past 2^53
 * exact: the value is carried as its text and spliced into the reply (exact-json.ts).
 */

import { jsonText, parseJson } from '../sql/json/value.ts';

export class RawJson {
  constructor(readonly text: string) {}

  /** Where a row is serialized without stringifyRows (the explorer's objects): the parsed value. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A JSON result value from an engine's JSON text (an engine may order keys or spell numbers its own way). */
export function jsonResult(engineText: string): RawJson {
  return new RawJson(jsonText(parseJson(engineText)));
}
