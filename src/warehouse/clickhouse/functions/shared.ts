/** Pieces several of ClickHouse's function files use. */

import type { CallParts, Emitter } from '../../../sql/emitters.ts';

/**
 * Counts, lengths and positions cast to Int64 (BigQuery's INT64; ClickHouse returns UInt64,
 * which wraps around on subtraction).
 */
export const int64 =
  (inner: Emitter): Emitter =>
  (call) =>
    `toInt64(${inner(call)})`;

/** A ClickHouse string literal (backslashes and quotes escaped, as ClickHouse reads them). */
export const quoted = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/**
 * BigQuery's error with `message` for the rows where `failing` holds, NULL for the others: an
 * element of `[NULL]` at an index throwIf computes, so it fits any branch (`if(…, NULL, NULL)`
 * would be folded away). The condition is the row's own: ClickHouse evaluates some branches of
 * multiIf for every row.
 */
export const raiseWhere = (failing: string, message: string) => `[NULL][throwIf(${failing}, ${quoted(message)}) + 1]`;

/** `value`, or BigQuery's error where `failing` holds; NULL there under SAFE. */
export const guarded = (call: CallParts, failing: string, message: string, value: string) =>
  `if(${failing}, ${call.safe ? 'NULL' : raiseWhere(failing, message)}, ${value})`;

/**
 * ERROR(message): raises whenever evaluated. throwIf takes a constant message only; another
 * message is raised by failing to read it as a number, which keeps it in ClickHouse's error text
 * (a Nullable text that fails to read gives NULL, not an error: hence ifNull).
 */
export function raiseMessage(message: string, constant: boolean): string {
  const failing = constant ? `throwIf(1, ${message})` : `toUInt8(concat('ERROR: ', ifNull(${message}, 'NULL')))`;
  return `[NULL][${failing} + 1]`;
}

/** A STRING's characters (UTF-8 sequences), or BYTES' bytes. */
export const characters = (value: string, bytes = false) => (bytes ? `splitByString('', ${value})` : `extractAll(${value}, '(?s).')`);

/** The code point of one UTF-8 character (its bytes decoded). */
export function codePoint(char: string): string {
  const byte = (index: number) => `reinterpretAsUInt8(substring(${char}, ${index}, 1))`;
  return (
    `toInt64(multiIf(${byte(1)} < 128, ${byte(1)}, ${byte(1)} < 224, (${byte(1)} - 192) * 64 + ${byte(2)} - 128,` +
    ` ${byte(1)} < 240, (${byte(1)} - 224) * 4096 + (${byte(2)} - 128) * 64 + ${byte(3)} - 128,` +
    ` (${byte(1)} - 240) * 262144 + (${byte(2)} - 128) * 4096 + (${byte(3)} - 128) * 64 + ${byte(4)} - 128))`
  );
}
