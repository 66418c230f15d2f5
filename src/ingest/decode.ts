/**
 * Request body decoding: content encodings, size limit, UTF-8 and JSON / NDJSON parsing.
 * Knows nothing about HTTP or senders; adapters turn the result into events.
 *
 * Decisions:
 * - The limit applies to the body as received and to every decompressed stage, so a gzip bomb
 *   stops as soon as its output passes the limit (zlib `maxOutputLength`), never after.
 * - A body starting with the gzip magic bytes is gunzipped even without `Content-Encoding`
 *   (Cloudflare Logpush); those bytes can never begin JSON text, so sniffing cannot misfire.
 * - `deflate` accepts both zlib-wrapped (what the RFC says) and raw deflate (what some clients send).
 * - No Content-Type is read as JSON; `text/plain` is read as one JSON document when the whole body
 *   parses as one, else as NDJSON (Logpush sends NDJSON as text/plain; curl users send JSON).
 * - NDJSON: blank lines are skipped and a line that is not JSON is a per-line error, so one bad
 *   line never costs the other events. A JSON body that does not parse is a 400 for the request.
 * - A leading UTF-8 byte order mark is ignored.
 */
import { isUtf8, constants as bufferConstants } from 'node:buffer';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { AppError } from '../errors.ts';
import { findJsonSyntaxError, positionAt } from './json-text.ts';
import { checkJsonText, requestLimits, type RequestLimits } from './request-limits.ts';

export interface BodyHeaders {
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
}

export type NdjsonLine =
  | { ok: true; line: number; value: unknown }
  | { ok: false; line: number; error: string };

export type DecodedBody =
  /** One JSON document (object, array or scalar). */
  | { kind: 'json'; value: unknown }
  /** One entry per non-blank line, 1-based line numbers. */
  | { kind: 'ndjson'; lines: NdjsonLine[] }
  /** Raw text bodies (Heroku logplex frames); octet counts need the bytes, so they are kept. */
  | { kind: 'text'; mediaType: string; bytes: Buffer };

type BodyFormat = 'json' | 'ndjson' | 'json-or-ndjson' | 'form' | 'text';

const JSON_TYPES = new Set(['application/json', 'text/json', 'application/csp-report', 'application/reports+json']);
const NDJSON_TYPES = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'application/jsonlines',
]);
const TEXT_TYPES = new Set(['application/logplex-1']);

/**
 * `limits` bound what the parse may allocate (events and containers, see request-limits.ts); they
 * are checked on the text before JSON.parse runs.
 */
export async function decodeBody(body: Buffer, headers: BodyHeaders, limitBytes: number, limits: RequestLimits = requestLimits(limitBytes)): Promise<DecodedBody> {
  const mediaType = mediaTypeOf(headers.contentType);
  const format = formatOf(mediaType);
  assertWithinLimit(body.length, limitBytes, 'request body');
  const bytes = await decompress(body, headers.contentEncoding, limitBytes);
  if (format === 'text') return { kind: 'text', mediaType, bytes };
  const text = format === 'form' ? formPayload(utf8Text(bytes)) : utf8Text(bytes);
  checkJsonText(text, limits);
  switch (format) {
    case 'json':
    case 'form':
      return { kind: 'json', value: parseJsonDocument(text) };
    case 'ndjson':
      return { kind: 'ndjson', lines: parseNdjson(text) };
    case 'json-or-ndjson':
      return parseJsonOrNdjson(text);
  }
}

/** GitHub's default webhook content type puts the JSON document in a `payload` form field. */
function formPayload(text: string): string {
  const payload = new URLSearchParams(text).get('payload');
  if (payload === null) {
    throw new AppError(415, 'unsupported_media_type', 'an application/x-www-form-urlencoded body must carry its JSON in a "payload" field');
  }
  return payload;
}

/** The lower-cased media type without parameters; '' when the header is absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function formatOf(mediaType: string): BodyFormat {
  if (mediaType === '' || JSON_TYPES.has(mediaType) || mediaType.endsWith('+json')) return 'json';
  if (NDJSON_TYPES.has(mediaType)) return 'ndjson';
  if (mediaType === 'text/plain') return 'json-or-ndjson';
  if (TEXT_TYPES.has(mediaType)) return 'text';
  if (mediaType === 'application/x-www-form-urlencoded') return 'form';
  throw new AppError(
    415,
    'unsupported_media_type',
    `Content-Type ${mediaType} is not supported; send application/json, application/x-ndjson or text/plain`,
  );
}

function assertWithinLimit(size: number, limitBytes: number, what: string): void {
  if (size > limitBytes) {
    throw new AppError(413, 'payload_too_large', `${what} is larger than the limit of ${limitBytes} bytes`);
  }
}

// ---- content encodings ----

type Decoder = (input: Buffer, options: zlib.ZlibOptions | zlib.BrotliOptions) => Promise<Buffer>;
const gunzip = promisify(zlib.gunzip) as Decoder;
const inflate = promisify(zlib.inflate) as Decoder;
const inflateRaw = promisify(zlib.inflateRaw) as Decoder;
const brotli = promisify(zlib.brotliDecompress) as Decoder;

const isGzip = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
/** RFC 1950 header: deflate method in the low nibble, header checksum divisible by 31. */
const isZlibWrapped = (b: Buffer): boolean => b.length >= 2 && (b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0;

/** Undoes the Content-Encoding (and a sniffed gzip), each stage held to the limit. Shared with the OTLP route. */
export async function decompress(body: Buffer, contentEncoding: string | undefined, limitBytes: number): Promise<Buffer> {
  // Encodings are listed in the order they were applied, so undo them from the last.
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  if (codings.length === 0 && isGzip(body)) codings.push('gzip');
  let bytes = body;
  for (const coding of codings) bytes = await undo(coding, bytes, limitBytes);
  return bytes;
}

async function undo(coding: string, input: Buffer, limitBytes: number): Promise<Buffer> {
  const decoder = decoderFor(coding, input);
  // zlib refuses 0 and values beyond the largest Buffer; both ends are clamped.
  const maxOutputLength = Math.max(1, Math.min(limitBytes, bufferConstants.MAX_LENGTH));
  try {
    const output = await decoder(input, { maxOutputLength });
    assertWithinLimit(output.length, limitBytes, 'decompressed body');
    return output;
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isNodeError(error) && error.code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AppError(413, 'payload_too_large', `decompressed body is larger than the limit of ${limitBytes} bytes`);
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError(400, 'invalid_encoding', `body is not valid ${coding} data: ${reason}`);
  }
}

function decoderFor(coding: string, input: Buffer): Decoder {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return gunzip;
    case 'deflate':
      return isZlibWrapped(input) ? inflate : inflateRaw;
    case 'br':
      return brotli;
    default:
      throw new AppError(
        415,
        'unsupported_encoding',
        `Content-Encoding ${coding} is not supported; use gzip, deflate, br or identity`,
      );
  }
}

function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

// ---- text ----

function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8Offset(bytes);
    throw new AppError(
      400,
      'invalid_utf8',
      `body is not valid UTF-8: invalid byte 0x${bytes[offset]?.toString(16).padStart(2, '0') ?? '??'} at byte offset ${offset}`,
    );
  }
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', hasBom ? 3 : 0);
}

/** Byte offset where a UTF-8 decoder would first fail (only called on bytes known to be invalid). */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    // The second byte's range is narrower after E0, ED, F0 and F4 (overlongs, surrogates, > U+10FFFF).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      const b = bytes[i + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (b === undefined || b < min || b > max) return i + k < bytes.length ? i + k : i;
    }
    i += length;
  }
  return bytes.length;
}

// ---- JSON ----

function parseJsonDocument(text: string): unknown {
  if (text.trim() === '') {
    throw new AppError(400, 'invalid_json', 'body is empty; expected a JSON object or array');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError(400, 'invalid_json', `body is not valid JSON: ${describeJsonError(text, error)}`);
  }
}

function parseNdjson(text: string): NdjsonLine[] {
  const lines: NdjsonLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    try {
      lines.push({ ok: true, line: index + 1, value: JSON.parse(line) });
    } catch (error) {
      lines.push({ ok: false, line: index + 1, error: `line ${index + 1} is not valid JSON: ${describeJsonError(line, error)}` });
    }
  });
  return lines;
}

function parseJsonOrNdjson(text: string): DecodedBody {
  if (text.trim() === '') return { kind: 'ndjson', lines: [] };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    return { kind: 'ndjson', lines: parseNdjson(text) };
  }
}

/** "<reason> at line L column C", from our own scanner since V8's message rarely says where. */
function describeJsonError(text: string, parseError: unknown): string {
  const found = findJsonSyntaxError(text);
  if (!found) return parseError instanceof Error ? parseError.message : String(parseError);
  const { line, column } = positionAt(text, found.offset);
  return `${found.reason} at line ${line} column ${column}`;
}
