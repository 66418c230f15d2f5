import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_URL = 'http://127.0.0.1:4000';

export class CliError extends Error {
  constructor(
    message: string,
    /** 1: the request failed; 2: the command line is wrong. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Connection {
  url: string;
  key: string | undefined;
}

/**
 * `--url`/`SAWMILL_URL`, `--key`/`SAWMILL_API_KEY` or the key the service itself reads from the
 * same variables (`LOGFLARE_PRIVATE_ACCESS_TOKEN`, which Supabase's stack sets, so `sawmill` in
 * the analytics container signs in as Studio does); with none given (an empty value is none),
 * the key a local server generated on first start (`$SAWMILL_DATA_DIR/private-key`), so
 * `sawmill` works beside `npm start` with no setup.
 */
export function connection(options: { url?: string | undefined; key?: string | undefined }, env: NodeJS.ProcessEnv = process.env): Connection {
  const url = (options.url ?? env.SAWMILL_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  let key = options.key || env.SAWMILL_API_KEY || env.LOGFLARE_PRIVATE_ACCESS_TOKEN;
  if (!key) {
    const generated = join(resolve(env.SAWMILL_DATA_DIR || './data'), 'private-key');
    if (existsSync(generated)) key = readFileSync(generated, 'utf8').trim();
  }
  return { url, key: key || undefined };
}

function errorText(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const error = (body as { error?: unknown }).error;
    if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
    // Management routes answer in Logflare's shape, {"error": "Not Found", "message": …}.
    if (typeof error === 'string') return typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : error;
    const errors = (body as { errors?: Record<string, string[]> }).errors;
    if (errors) return Object.entries(errors).map(([field, messages]) => `${field}: ${messages.join(', ')}`).join('; ');
  }
  return typeof body === 'string' && body ? body.slice(0, 500) : `HTTP ${status}`;
}

export class ApiClient {
  constructor(readonly connection: Connection) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.connection.key ? { 'x-api-key': this.connection.key } : {}), ...extra };
  }

  /** Send a request; a reply other than 2xx becomes a CliError with the service's own message. */
  async request<T = unknown>(method: string, path: string, body?: unknown, init: { contentType?: string; raw?: boolean } = {}): Promise<T> {
    return (await this.reply<T>(method, path, body, init)).body;
  }

  /** `request`, with the reply's headers. */
  async reply<T = unknown>(method: string, path: string, body?: unknown, init: { contentType?: string; raw?: boolean } = {}): Promise<{ body: T; headers: Headers }> {
    let response: Response;
    const payload = body === undefined ? undefined : init.raw ? (body as BodyInit) : JSON.stringify(body);
    const contentType = init.contentType ?? (body === undefined ? undefined : 'application/json');
    try {
      response = await fetch(this.connection.url + path, {
        method,
        headers: this.headers(contentType ? { 'content-type': contentType } : {}),
        body: payload,
      });
    } catch (error) {
      throw new CliError(`cannot reach ${this.connection.url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`);
    }
    return { body: await this.read<T>(response), headers: response.headers };
  }

  async read<T>(response: Response): Promise<T> {
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: reported as text below.
    }
    if (!response.ok) {
      const hint = response.status === 401 ? ' (pass --key or set SAWMILL_API_KEY)' : '';
      throw new CliError(`${response.status}: ${errorText(response.status, parsed)}${hint}`);
    }
    return parsed as T;
  }

  /** A GET whose reply is kept open (server-sent events). */
  async stream(path: string, signal: AbortSignal): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(this.connection.url + path, { headers: this.headers({ accept: 'text/event-stream' }), signal });
    } catch (error) {
      throw new CliError(`cannot reach ${this.connection.url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`);
    }
    if (!response.ok || !response.body) await this.read(response);
    return response;
  }
}

export interface ServerSentEvent {
  event: string;
  data: string;
}

/** Split a text/event-stream body into events; comments (heartbeats) are skipped. */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}
