/**
 * `P/json`: generic JSON (webhooks, Fluent Bit, LogLayer). Each element is stored with `metadata` =
 * the element and `event_message` = its JSON text. Unlike Logflare, the element's own top-level
 * `timestamp` (Fluent Bit puts ISO 8601 there) becomes the event time; it also stays inside
 * metadata. Also unlike Logflare, a body that is only a batch envelope, `{"batch": [...]}`, is a
 * batch: its elements are the events (LogLayer's Logflare transport posts exactly that here, and
 * Logflare stores the whole envelope as one event). A body `source` is data here, not routing:
 * shippers' records often carry a `source` field.
 */
import { type Adapter, type BodyItem, type RawEvent, bodyItems, isPlainObject, objectEvents } from './adapter.ts';
import type { DecodedBody } from './decode.ts';
import { toJsonText } from './json-text.ts';

export const jsonAdapter: Adapter = ({ body }) => ({
  events: objectEvents(batchItems(body) ?? bodyItems(body, 'json'), genericJsonEvent),
  routing: {},
});

/** The elements of a `{"batch": [...]}` body with no other field; undefined for any other body. */
function batchItems(body: DecodedBody): BodyItem[] | undefined {
  if (body.kind !== 'json' || !isPlainObject(body.value)) return undefined;
  const keys = Object.keys(body.value);
  const batch = body.value.batch;
  if (keys.length !== 1 || keys[0] !== 'batch' || !Array.isArray(batch)) return undefined;
  return batch.map((value, i) => ({ ok: true, value, where: `batch[${i}]` }));
}

export function genericJsonEvent(element: Record<string, unknown>): RawEvent {
  const event: RawEvent = { event_message: toJsonText(element), metadata: element };
  if (element.timestamp !== undefined) event.timestamp = element.timestamp;
  return event;
}
