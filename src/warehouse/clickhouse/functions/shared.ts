/** Pieces several of ClickHouse's function files use. */

import type { Emitter } from '../../../sql/emitters.ts';

/**
 * Counts, lengths and positions cast to Int64 (BigQuery's INT64; ClickHouse returns UInt64,
 * which wraps around on subtraction).
 */
export const int64 =
  (inner: Emitter): Emitter =>
  (call) =>
    `toInt64(${inner(call)})`;

/**
 * An error with `message` when evaluated (only for the rows that reach it), typed NULL so it fits
 * any branch of a CASE: an element of `[NULL]` at an index the error computes (`if(…, NULL,
 * NULL)` would be folded away). throwIf takes a constant message only; another message is raised
 * by failing to read it as a number, which keeps it in ClickHouse's error text.
 */
export function raise(message: string, constant = true): string {
  // (A Nullable text that fails to read as a number gives NULL, not an error: hence ifNull.)
  const failing = constant ? `throwIf(1, ${message})` : `toUInt8(concat('ERROR: ', ifNull(${message}, 'NULL')))`;
  return `[NULL][${failing} + 1]`;
}
