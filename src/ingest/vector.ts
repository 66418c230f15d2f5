/**
 * `P/vector`: Vector's http sink (JSON array or NDJSON of Vector log events), as Logflare reads it:
 * `message` is the event message and leaves metadata; `timestamp` is the event time and leaves
 * metadata; `log.level`, when present, is copied to a top-level metadata `level`. Events without a
 * `message` use the JSON text of their metadata, like Logflare.
 */
import { type Adapter, type RawEvent, bodyItems, isPlainObject, objectEvents, pathValue } from './adapter.ts';
import { toJsonText } from './json-text.ts';

export const vectorAdapter: Adapter = ({ body }) => ({
  events: objectEvents(bodyItems(body, 'vector'), vectorEvent),
  routing: {},
});

export function vectorEvent(record: Record<string, unknown>): RawEvent {
  const { message, timestamp, ...rest } = record;
  const level = pathValue(rest, 'log', 'level');
  const metadata = level !== undefined && isPlainObject(rest.log) ? { ...rest, level } : rest;
  const event: RawEvent = { event_message: message ?? toJsonText(metadata), metadata };
  if (timestamp !== undefined) event.timestamp = timestamp;
  return event;
}
