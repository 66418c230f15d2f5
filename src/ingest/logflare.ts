/**
 * `POST P`: Logflare's raw event route. `{"batch": [...]}` and a bare array are batches, any other
 * object is one event (an empty batch is fine: zero events), and NDJSON is one event per line.
 * Events pass through as sent; normalisation picks out message, id, timestamp and fields.
 */
import { AppError } from '../errors.ts';
import {
  type Adapter,
  type AdapterInput,
  type BodyItem,
  type RawEvent,
  type RawEvents,
  bodyItems,
  describeType,
  isPlainObject,
  objectEvents,
  takeRouting,
} from './adapter.ts';

export const logflareAdapter: Adapter = (input) => batchEvents(input, 'raw', (event) => event);

/**
 * Shared by the raw and Cloudflare routes, which accept the same envelopes: a batch object, a bare
 * array, one object (whose `source` / `source_name` are routing) or NDJSON.
 */
export function batchEvents(input: AdapterInput, route: string, toEvent: (item: Record<string, unknown>) => RawEvent): RawEvents {
  const { body } = input;
  if (body.kind !== 'json' || Array.isArray(body.value)) {
    return { events: objectEvents(bodyItems(body, route), toEvent), routing: {} };
  }
  if (!isPlainObject(body.value)) {
    throw new AppError(400, 'invalid_body', `body must be a JSON object or array, got ${describeType(body.value)}`);
  }
  const { routing, rest } = takeRouting(body.value);
  if (Array.isArray(rest.batch)) {
    const items: BodyItem[] = rest.batch.map((value, i) => ({ ok: true, value, where: `batch[${i}]` }));
    return { events: objectEvents(items, toEvent), routing };
  }
  // Not a batch envelope: the object (routing keys removed) is the one event.
  return { events: objectEvents([{ ok: true, value: rest, where: 'body' }], toEvent), routing };
}
