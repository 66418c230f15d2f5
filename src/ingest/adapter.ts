/**
 * What every sender adapter takes and returns, plus the helpers they share.
 * An adapter turns a decoded body into Logflare-shaped raw events (`message` / `event_message` /
 * `log_entry`, `metadata`, `timestamp`, any other top-level field); normalisation happens later.
 */
import { AppError } from '../errors.ts';
import type { DecodedBody } from './decode.ts';
import { toJsonText } from './json-text.ts';

export type HeaderValue = string | string[] | undefined;

export interface AdapterInput {
  body: DecodedBody;
  /** Query string parameters. */
  query: Readonly<Record<string, string | undefined>>;
  /** Request headers with lower-case names, as node:http gives them. */
  headers: Readonly<Record<string, HeaderValue>>;
}

/** One event as the sender meant it, before normalisation. */
export type RawEvent = Record<string, unknown>;

/** Per event: the event, or why this one element of the body could not become an event. */
export type RawEventResult = { ok: true; event: RawEvent } | { ok: false; error: string };

/** Source named inside the body (raw and Cloudflare routes only); query and headers win over it. */
export interface BodyRouting {
  source?: string;
  sourceName?: string;
}

export interface RawEvents {
  /** In body order, so index i of the response's per-event report is element i of the body. */
  events: RawEventResult[];
  routing: BodyRouting;
}

export type Adapter = (input: AdapterInput) => RawEvents;

/** One element of a body: a parsed value with a human label for error messages, or a parse error. */
export type BodyItem = { ok: true; value: unknown; where: string } | { ok: false; error: string };

/**
 * The elements of a JSON or NDJSON body: an array's elements, a lone document, or each NDJSON line.
 * Text bodies belong to the logplex adapter only.
 */
export function bodyItems(body: DecodedBody, route: string): BodyItem[] {
  switch (body.kind) {
    case 'json':
      return Array.isArray(body.value)
        ? body.value.map((value, i) => ({ ok: true, value, where: `element ${i}` }))
        : [{ ok: true, value: body.value, where: 'body' }];
    case 'ndjson':
      return body.lines.map((l) => (l.ok ? { ok: true, value: l.value, where: `line ${l.line}` } : { ok: false, error: l.error }));
    case 'text':
      throw new AppError(
        415,
        'unsupported_media_type',
        `Content-Type ${body.mediaType} is not accepted on the ${route} route; send JSON or NDJSON`,
      );
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Applies `toEvent` to each element that is an object; anything else is a per-event error. */
export function objectEvents(items: BodyItem[], toEvent: (item: Record<string, unknown>) => RawEvent): RawEventResult[] {
  return items.map((item) => {
    if (!item.ok) return item;
    if (!isPlainObject(item.value)) {
      return { ok: false, error: `${item.where}: expected a JSON object, got ${describeType(item.value)}` };
    }
    return { ok: true, event: toEvent(item.value) };
  });
}

/** First value of a header, whether node gave a string or a list. */
export function headerValue(headers: AdapterInput['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The field at `path` of a JSON value, or undefined when any step is missing. */
export function pathValue(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** How a value reads inside a "a | b | c" message: missing is empty, like Logflare's interpolation. */
export function messagePart(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : toJsonText(value);
}

/**
 * A copy of `root` without the object keys `drop` selects, at every depth. Iterative, because
 * webhook bodies come from the network and may be nested deeper than the call stack allows.
 */
export function withoutKeys(root: unknown, drop: (key: string) => boolean): unknown {
  const pending: Array<[source: object, copy: object]> = [];
  const copyOf = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const copy = Array.isArray(value) ? [] : {};
    pending.push([value, copy]);
    return copy;
  };
  const result = copyOf(root);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [source, copy] = next;
    if (Array.isArray(source)) {
      for (const item of source) (copy as unknown[]).push(copyOf(item));
      continue;
    }
    for (const [key, value] of Object.entries(source)) {
      // defineProperty, not assignment, so a "__proto__" key stays an ordinary key.
      if (!drop(key)) Object.defineProperty(copy, key, { value: copyOf(value), enumerable: true, writable: true, configurable: true });
    }
  }
  return result;
}

/**
 * `source` / `source_name` of a single-object body are routing, not data: they are taken out of
 * the event. Only string values can name a source, so other values stay as ordinary fields.
 */
export function takeRouting(body: Record<string, unknown>): { routing: BodyRouting; rest: Record<string, unknown> } {
  const routing: BodyRouting = {};
  const rest: Record<string, unknown> = { ...body };
  if (typeof body.source === 'string') {
    routing.source = body.source;
    delete rest.source;
  }
  if (typeof body.source_name === 'string') {
    routing.sourceName = body.source_name;
    delete rest.source_name;
  }
  return { routing, rest };
}
