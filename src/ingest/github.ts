/**
 * `P/github`: GitHub webhooks. event_message = `<repository.full_name> | <sender.login> | <action>`;
 * events without an `action` (push, for one) use the `X-GitHub-Event` header there instead of
 * leaving it empty. metadata = the body with every key ending in `_url` removed at any depth.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Adapter, type RawEvent, bodyItems, headerValue, messagePart, objectEvents, pathValue, withoutKeys } from './adapter.ts';

export const githubAdapter: Adapter = ({ body, headers }) => {
  const eventName = headerValue(headers, 'x-github-event');
  return { events: objectEvents(bodyItems(body, 'github'), (payload) => githubEvent(payload, eventName)), routing: {} };
};

export function githubEvent(payload: Record<string, unknown>, eventName?: string): RawEvent {
  const action = payload.action ?? eventName;
  return {
    event_message: [pathValue(payload, 'repository', 'full_name'), pathValue(payload, 'sender', 'login'), action]
      .map(messagePart)
      .join(' | '),
    metadata: withoutKeys(payload, (key) => key.endsWith('_url')),
  };
}

/**
 * Checks `X-Hub-Signature-256` (`sha256=<hex HMAC-SHA256 of the raw body>`) in constant time.
 * `rawBody` must be the bytes exactly as received, before any parsing.
 */
export function verifyGithubSignature(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(match[1]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
