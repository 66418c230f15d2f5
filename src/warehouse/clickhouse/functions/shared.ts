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
