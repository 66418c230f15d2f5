/**
 * The service log's line for a request, and the URL it shows: keys redacted wherever in the URL
 * they were sent (docs/security.md, "What is logged").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A path parameter that is an id (digits) or else may be a key itself: logged only as an id. */
    keyParam?: string;
  }
}

const REDACTED = '[redacted]';

/**
 * What the console polls every 5 s per open tab, and what health checks call: at info they filled
 * the log with a line a poll, so they are logged at debug.
 */
const POLLED_ROUTES = new Set(['/health', '/metrics', '/api/explorer/sources', '/api/explorer/key']);

export interface UrlRedaction {
  /** Whether a value is a key the service accepts: checked for every path segment and query value. */
  isKey?: (value: string) => boolean;
  /** The matched route's pattern (`/api/access-tokens/:token`) and its parameter that may be a key. */
  route?: string | undefined;
  keyParam?: string | undefined;
  /** At most this many characters of the URL are shown (LOGGED_URL_CHARS unless told). */
  maxLength?: number;
}

/**
 * How much of a request's URL its log line shows: a request line may be 512 KiB
 * (SAWMILL_MAX_HEADER_BYTES), and a `?sql=` of 100,000 characters is no reason for a log line as
 * long, twice (the message and `req.url`). What is past it is said by the URL's length.
 */
export const LOGGED_URL_CHARS = 2048;

/**
 * A URL with its secrets replaced, before it is logged:
 * - the value of every query parameter whose name, decoded as the query parser decodes it
 *   (`api%5Fkey` is `api_key`), could carry a key, whatever its case or separators (`API-Key`,
 *   `apikey`, `api_key[]`);
 * - the route's key parameter unless it is an id (`DELETE /api/access-tokens/<key>`, which is
 *   no longer a key once the line is written, as the request revoked it);
 * - any path segment or query value that is a key, whatever the route (a key sent where a source
 *   name goes, or as `?token=`).
 * Then cut to `maxLength` characters: each piece is redacted whole before it is cut, so no part of
 * a key is shown, and no piece past the cut is even looked at (the work is bounded too).
 */
export function redactUrl(url: string, { isKey, route, keyParam, maxLength = LOGGED_URL_CHARS }: UrlRedaction = {}): string {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const pattern = keyParam && route ? route.split('/') : [];
  const shown = new BoundedText(maxLength);
  const segments = path.split('/');
  for (let index = 0; index < segments.length && !shown.cut; index++) {
    const segment = segments[index]!;
    if (index > 0) shown.add('/');
    if (pattern[index] === `:${keyParam}`) shown.add(/^\d+$/.test(segment) ? segment : REDACTED);
    else shown.add(isKey && mayBeKey(segment) && isKey(decoded(segment)) ? REDACTED : segment);
  }
  const pairs = queryAt < 0 ? [] : url.slice(queryAt + 1).split('&');
  for (let index = 0; index < pairs.length && !shown.cut; index++) {
    const pair = pairs[index]!;
    shown.add(index === 0 ? '?' : '&');
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const value = equals < 0 ? '' : pair.slice(equals + 1);
    const namesKey = decoded(name.replaceAll('+', ' ')).toLowerCase().replace(/[^a-z0-9]/g, '') === 'apikey';
    shown.add(namesKey || (isKey && mayBeKey(value) && isKey(decoded(value.replaceAll('+', ' ')))) ? `${name}=${REDACTED}` : pair);
  }
  return shown.cut ? `${shown.text}…[cut: the URL has ${url.length} characters]` : shown.text;
}

/** Text built piece by piece up to a length: a piece that does not fit is cut, and ends it. */
class BoundedText {
  text = '';
  cut = false;
  constructor(private readonly maxLength: number) {}

  add(piece: string): void {
    if (this.cut) return;
    if (this.text.length + piece.length <= this.maxLength) this.text += piece;
    else {
      this.text += piece.slice(0, this.maxLength - this.text.length);
      this.cut = true;
    }
  }
}

/**
 * Which values are digested to be checked: a digest costs ~2 µs, and a 2 KB query string can hold
 * hundreds of short values. A key under 8 characters could be guessed anyway, and none is 4 KB.
 */
const mayBeKey = (raw: string) => raw.length >= 8 && raw.length <= 4096;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * One line a request once it is answered: method, path (keys redacted), status and time, with the
 * request's fields for machines. Through the request's own logger, so a route's level holds
 * (ingestion logs its requests only at debug: routes/ingest.ts).
 */
export function logEachRequest(app: FastifyInstance, isKey: (value: string) => boolean): void {
  app.addHook('onResponse', (request, reply, done) => {
    const polled = request.method === 'GET' && POLLED_ROUTES.has(request.routeOptions.url ?? '');
    const level = polled ? 'debug' : 'info';
    // pino's loggers have it; Fastify's type leaves it out.
    if ((request.log as typeof request.log & { isLevelEnabled(level: string): boolean }).isLevelEnabled(level)) {
      const message = `${request.method} ${loggedUrl(request, isKey)} ${reply.statusCode} in ${Math.round(reply.elapsedTime)} ms`;
      request.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime }, message);
    }
    done();
  });
}

/** The request's URL as the log shows it. */
export function loggedUrl(request: FastifyRequest, isKey: (value: string) => boolean): string {
  // Optional: Fastify's own lines may pass the bare Node request.
  const route = request.routeOptions as FastifyRequest['routeOptions'] | undefined;
  return redactUrl(request.url, { isKey, route: route?.url, keyParam: route?.config?.keyParam });
}
