/**
 * `P/json`: generic JSON (webhooks, Fluent Bit). Each element is stored with `metadata` = the element
 * and `event_message` = its JSON text. Unlike Logflare, the element's own top-level `timestamp`
 * (Fluent Bit puts ISO 8601 there) becomes the event time; it also stays inside metadata.
 * A body `source` is data here, not routing: shippers' records often carry a `source` field.
 */
import { type Adapter, type RawEvent, bodyItems, objectEvents } from './adapter.ts';
import { toJsonText } from './json-text.ts';

export const jsonAdapter: Adapter = ({ body }) => ({
  events: objectEvents(bodyItems(body, 'json'), genericJsonEvent),
  routing: {},
});

export function genericJsonEvent(element: Record<string, unknown>): RawEvent {
  const event: RawEvent = { event_message: toJsonText(element), metadata: element };
  if (element.timestamp !== undefined) event.timestamp = element.timestamp;
  return event;
}
