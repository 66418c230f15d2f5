/**
 * `P/cloudflare`: two senders share this route.
 * - The Logflare worker template sends Logflare-shaped events (`log_entry` or `message` /
 *   `event_message`, `metadata`), as a `{"batch": [...], "source": ...}` object or one event.
 *   They pass through like on the raw route.
 * - Logpush sends its records as NDJSON (usually gzip, `text/plain`) or as a JSON array. A record
 *   is recognised by carrying none of the Logflare keys above. It becomes an event with
 *   event_message = `ClientRequestMethod | EdgeResponseStatus | ClientRequestHost | ClientRequestURI`
 *   when any of those fields exist (HTTP requests dataset), else the record's JSON text; metadata =
 *   the record; timestamp = the first of `EdgeStartTimestamp` (HTTP requests), `Datetime`
 *   (firewall and most other datasets), `EventTimestampMs` (Workers trace events) that is present,
 *   in any of Logpush's formats (RFC 3339, unix seconds, unix nanoseconds).
 */
import { type Adapter, type RawEvent, messagePart } from './adapter.ts';
import { toJsonText } from './json-text.ts';
import { batchEvents } from './logflare.ts';

const LOGFLARE_KEYS = ['log_entry', 'message', 'event_message', 'metadata'];
const SUMMARY_KEYS = ['ClientRequestMethod', 'EdgeResponseStatus', 'ClientRequestHost', 'ClientRequestURI'];
const TIME_KEYS = ['EdgeStartTimestamp', 'Datetime', 'EventTimestampMs'];

export const cloudflareAdapter: Adapter = (input) => batchEvents(input, 'cloudflare', cloudflareEvent);

export function cloudflareEvent(record: Record<string, unknown>): RawEvent {
  if (LOGFLARE_KEYS.some((key) => Object.hasOwn(record, key))) return record;
  const event: RawEvent = { event_message: logpushMessage(record), metadata: record };
  const timeKey = TIME_KEYS.find((key) => record[key] !== undefined && record[key] !== null);
  if (timeKey) event.timestamp = record[timeKey];
  return event;
}

function logpushMessage(record: Record<string, unknown>): string {
  if (!SUMMARY_KEYS.some((key) => Object.hasOwn(record, key))) return toJsonText(record);
  return SUMMARY_KEYS.map((key) => messagePart(record[key])).join(' | ');
}
