/**
 * The console's only way to the service. The key lives in sessionStorage, gone when the tab
 * closes; in localStorage (every tab of this browser, until Sign out) only when the person asks.
 */

const KEY_STORAGE = 'sawmill.key';

export const storedKey = () => sessionStorage.getItem(KEY_STORAGE) ?? localStorage.getItem(KEY_STORAGE);
export const storeKey = (key: string, remember = false) => (remember ? localStorage : sessionStorage).setItem(KEY_STORAGE, key);
export const forgetKey = () => {
  sessionStorage.removeItem(KEY_STORAGE);
  localStorage.removeItem(KEY_STORAGE);
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The service's own words for an error, whichever of its shapes the reply uses. */
function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const { error, errors } = body as { error?: unknown; errors?: Record<string, string[]> };
    if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
    // Management routes answer in Logflare's shape, {"error": "Not Found", "message": …}.
    if (typeof error === 'string') return typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : error;
    if (errors) return Object.entries(errors).map(([field, messages]) => `${field}: ${messages.join(', ')}`).join('; ');
  }
  return `request failed (HTTP ${status})`;
}

function headers(key: string | null, json: boolean): Record<string, string> {
  return { ...(key ? { 'x-api-key': key } : {}), ...(json ? { 'content-type': 'application/json' } : {}) };
}

/** Status 0: no reply at all (the service is down or restarting). */
export const UNREACHABLE = 0;

/** A reply may come later: no answer, or a proxy's "bad gateway / unavailable" in front of a restarting service. */
export const isTransient = (error: unknown) => error instanceof ApiError && (error.status === UNREACHABLE || error.status === 502 || error.status === 503 || error.status === 504);

/** fetch, with "no reply" as an ApiError that says so instead of the browser's "Failed to fetch". */
async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiError(UNREACHABLE, 'The service is not answering (restarting?); trying again…');
  }
}

export async function api<T>(method: string, path: string, body?: unknown, key = storedKey()): Promise<T> {
  return (await apiReply<T>(method, path, body, key)).body;
}

/** `api`, with the reply's headers. */
export async function apiReply<T>(method: string, path: string, body?: unknown, key = storedKey()): Promise<{ body: T; headers: Headers }> {
  const response = await send(path, { method, headers: headers(key, body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(response.status, parsed));
  return { body: parsed as T, headers: response.headers };
}

/**
 * What an endpoint run's headers say about its parameters: those the query uses that had no value
 * (the API runs them as NULL) and the names given that the query does not use (ignored).
 */
export function parameterUse(headers: Headers): { missing: string[]; unknown: string[] } {
  const names = (header: string) => (headers.get(header) ?? '').split(', ').filter(Boolean).map(decodeURIComponent);
  return { missing: names('x-sawmill-missing-params'), unknown: names('x-sawmill-unknown-params') };
}

export const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/**
 * Follow a server-sent-event stream with fetch rather than EventSource, so the key travels in a
 * header (EventSource cannot send one) and the stream stops when `signal` aborts.
 */
export async function followEvents(path: string, signal: AbortSignal, onEvent: (event: string, data: string) => void): Promise<void> {
  const response = await send(path, { headers: { ...headers(storedKey(), false), accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) {
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text
    }
    throw new ApiError(response.status, messageOf(response.status, parsed));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) onEvent(event, data.join('\n'));
    }
  }
}

export interface KeyInfo {
  scopes: string[];
  manage: boolean;
}

export interface SourceStats {
  id: number;
  token: string;
  name: string;
  description: string | null;
  events: number;
  last_event: number | null;
  events_last_minute: number;
  /** Days its events are kept; null: forever. */
  retention_days: number | null;
}

export interface Endpoint {
  id: number;
  token: string;
  name: string;
  description: string | null;
  query: string;
  /** bq_sql (BigQuery SQL), ch_sql (ClickHouse SQL) or lql (LQL over the source `f:` names). */
  language: 'bq_sql' | 'ch_sql' | 'lql';
  sandboxable: boolean;
  cache_duration_seconds: number;
  proactive_requerying_seconds: number;
  max_limit: number;
  enable_auth: boolean;
}

export type LogEvent = Record<string, unknown> & { id: string; timestamp: number; event_message: string };
