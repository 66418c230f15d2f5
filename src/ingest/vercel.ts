/**
 * `P/vercel` and `P/zeit`: Vercel log drain entries (JSON array, or NDJSON for ndjson drains).
 *
 * event_message, following Logflare:
 * - `<source> | <proxy.statusCode> | <proxy.host> | <proxy.path> | <proxy.clientIp> | <proxy.userAgent>`
 *   for entries with a `proxy` object (edge and static requests);
 * - `build` entries: `build`, or `build | <message>` when the entry has a message (Logflare's own
 *   code emits `build | ` there and loses the message text; we keep it);
 * - other entries without `proxy` but with a `message` (lambda output): `<source> | <message>`,
 *   since five empty proxy columns would say nothing.
 * metadata = the entry, with `proxy.userAgent` (a list in Vercel's format) joined by ",";
 * timestamp = the entry's `timestamp` (milliseconds).
 */
import { type Adapter, type RawEvent, bodyItems, isPlainObject, messagePart, objectEvents } from './adapter.ts';

export const vercelAdapter: Adapter = ({ body }) => ({
  events: objectEvents(bodyItems(body, 'vercel'), vercelEvent),
  routing: {},
});

export function vercelEvent(entry: Record<string, unknown>): RawEvent {
  const metadata = withJoinedUserAgent(entry);
  const event: RawEvent = { event_message: vercelMessage(metadata), metadata };
  if (entry.timestamp !== undefined) event.timestamp = entry.timestamp;
  return event;
}

function vercelMessage(entry: Record<string, unknown>): string {
  const source = messagePart(entry.source);
  const message = messagePart(entry.message);
  if (source === 'build') return message === '' ? 'build' : `build | ${message}`;
  const proxy = entry.proxy;
  if (!isPlainObject(proxy) && message !== '') return `${source} | ${message}`;
  const p = isPlainObject(proxy) ? proxy : {};
  return [source, p.statusCode, p.host, p.path, p.clientIp, p.userAgent].map(messagePart).join(' | ');
}

function withJoinedUserAgent(entry: Record<string, unknown>): Record<string, unknown> {
  const proxy = entry.proxy;
  if (!isPlainObject(proxy) || !Array.isArray(proxy.userAgent)) return entry;
  return { ...entry, proxy: { ...proxy, userAgent: proxy.userAgent.map(messagePart).join(',') } };
}
