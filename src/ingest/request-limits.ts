/**
 * What one ingestion request may cost once decoded, checked before anything is materialised.
 *
 * A body under the size limit can still hold millions of tiny values: 11.4 MB of OTLP protobuf
 * held 6M empty LogRecords (protobufjs then ran the heap out of memory), 2.9 MB of `[{},{},…]`
 * held 1M events (1.2 GB of RSS). Two bounds, both counted by walking the bytes or the text
 * before JSON.parse or protobufjs allocate anything:
 *
 * - events per request (`SAWMILL_MAX_EVENTS_PER_REQUEST`, 100,000 by default): each event costs
 *   about a kilobyte on its way to the journal whatever its size;
 * - JSON objects and arrays (protobuf messages for OTLP) per request: one per 12 bytes of
 *   `SAWMILL_MAX_BODY_BYTES` (1,048,576 for 12 MiB). Each costs 50-100 bytes of heap while its
 *   text may be 2 bytes; scalars cost about what their text does. With both bounds, what a
 *   request's decoding allocates is a fixed multiple of the body limit, whatever the body holds.
 *
 * Past either: 413, with the limit named in the error.
 */
import { AppError } from '../errors.ts';

export interface RequestLimits {
  maxEventsPerRequest: number;
  /** JSON objects and arrays, or protobuf messages, one request may decode to. */
  maxContainers: number;
}

export const DEFAULT_MAX_EVENTS_PER_REQUEST = 100_000;
/** Body bytes per decoded container the limit allows (see the header). */
const BODY_BYTES_PER_CONTAINER = 12;

export function requestLimits(maxBodyBytes: number, maxEventsPerRequest = DEFAULT_MAX_EVENTS_PER_REQUEST): RequestLimits {
  return { maxEventsPerRequest, maxContainers: Math.max(1000, Math.floor(maxBodyBytes / BODY_BYTES_PER_CONTAINER)) };
}

export function tooManyEvents(limits: RequestLimits): AppError {
  const limit = limits.maxEventsPerRequest;
  return new AppError(413, 'too_many_events', `request holds more than ${limit} events, the limit per request (SAWMILL_MAX_EVENTS_PER_REQUEST); send them in smaller batches`, { limit });
}

function tooManyContainers(limits: RequestLimits, what: string): AppError {
  const limit = limits.maxContainers;
  return new AppError(413, 'decode_limit_exceeded', `request decodes to more than ${limit} ${what}, the limit per request (one per 12 bytes of SAWMILL_MAX_BODY_BYTES)`, { limit });
}

export function assertEventCount(count: number, limits: RequestLimits): void {
  if (count > limits.maxEventsPerRequest) throw tooManyEvents(limits);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the quote closing the string that opens at `start`, or the text's length. */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * Refuses JSON or NDJSON text whose parse would pass the limits, without parsing it. Events are
 * estimated from above as the envelopes have them: values at the top (NDJSON lines, or one
 * document), the elements of a top-level array, or of the largest array member of a top-level
 * object (`{"batch": […]}`). Text that is not JSON is left for the parser to refuse.
 */
export function checkJsonText(text: string, limits: RequestLimits): void {
  // Every container takes two characters and every event at least one plus a separator.
  if (text.length <= 2 * Math.min(limits.maxEventsPerRequest, limits.maxContainers)) return;
  const kinds: number[] = []; // open containers, innermost last: OPEN_OBJECT or OPEN_ARRAY
  let containers = 0;
  let topValues = 0;
  let elements = 0; // of the array being counted: the top-level one, or a member of the top-level object
  let largestArray = 0;
  let elementPending = false; // after '[' or ',' in an array whose elements are counted
  let inScalar = false;
  const startValue = () => {
    if (kinds.length === 0 && ++topValues > limits.maxEventsPerRequest) throw tooManyEvents(limits);
    if (elementPending) elements++;
    elementPending = false;
  };
  /** Elements are counted in the top-level array, or in an array that is a member of the top-level object. */
  const countsElements = () => {
    const depth = kinds.length;
    return (depth === 1 && kinds[0] === OPEN_ARRAY) || (depth === 2 && kinds[0] === OPEN_OBJECT && kinds[1] === OPEN_ARRAY);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      startValue();
      inScalar = false;
      i = stringEnd(text, i);
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      startValue();
      inScalar = false;
      if (++containers > limits.maxContainers) throw tooManyContainers(limits, 'JSON objects and arrays');
      kinds.push(c);
      elementPending = c === OPEN_ARRAY && countsElements();
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      inScalar = false;
      if (c === CLOSE_ARRAY && countsElements()) {
        largestArray = Math.max(largestArray, elements);
        elements = 0;
      }
      kinds.pop();
      elementPending = false;
    } else if (c === COMMA) {
      inScalar = false;
      elementPending = kinds.at(-1) === OPEN_ARRAY && countsElements();
    } else if (c === COLON || isWhitespace(c)) {
      inScalar = false;
    } else if (!inScalar) {
      startValue();
      inScalar = true;
    }
  }
  // Several values at the top are NDJSON lines, one event each; one holds its events in an array.
  const events = topValues > 1 ? topValues : Math.max(largestArray, elements, topValues);
  if (events > limits.maxEventsPerRequest) throw tooManyEvents(limits);
}

// ---- OTLP protobuf ----

/** Message-typed fields of each message in otlp/logs.proto: field number → message name. */
const MESSAGE_FIELDS: Record<string, Record<number, string>> = {
  ExportLogsServiceRequest: { 1: 'ResourceLogs' },
  ResourceLogs: { 1: 'Resource', 2: 'ScopeLogs' },
  ScopeLogs: { 1: 'InstrumentationScope', 2: 'LogRecord' },
  LogRecord: { 5: 'AnyValue', 6: 'KeyValue' },
  Resource: { 1: 'KeyValue' },
  AnyValue: { 5: 'ArrayValue', 6: 'KeyValueList' },
  ArrayValue: { 1: 'AnyValue' },
  KeyValueList: { 1: 'KeyValue' },
  KeyValue: { 2: 'AnyValue' },
  InstrumentationScope: { 3: 'KeyValue' },
};

/**
 * Walks an ExportLogsServiceRequest's wire format without decoding it, counting messages and
 * LogRecords, and refuses it past the limits. Malformed bytes end the walk quietly: protobufjs
 * refuses them next, with its own message.
 */
export function checkOtlpProtobuf(bytes: Uint8Array, limits: RequestLimits): void {
  const pending: Array<{ type: string; start: number; end: number }> = [{ type: 'ExportLogsServiceRequest', start: 0, end: bytes.length }];
  let messages = 0;
  let logRecords = 0;
  for (let message = pending.pop(); message; message = pending.pop()) {
    const fields = MESSAGE_FIELDS[message.type]!;
    let at = message.start;
    while (at < message.end) {
      const tag = readVarint(bytes, at, message.end);
      if (!tag) return;
      at = tag.next;
      const wireType = tag.value % 8;
      const field = Math.floor(tag.value / 8);
      if (wireType === 0) {
        const skipped = readVarint(bytes, at, message.end);
        if (!skipped) return;
        at = skipped.next;
      } else if (wireType === 1 || wireType === 5) {
        at += wireType === 1 ? 8 : 4;
      } else if (wireType === 2) {
        const length = readVarint(bytes, at, message.end);
        if (!length || length.next + length.value > message.end) return;
        const child = fields[field];
        if (child) {
          if (++messages > limits.maxContainers) throw tooManyContainers(limits, 'protobuf messages');
          if (child === 'LogRecord' && ++logRecords > limits.maxEventsPerRequest) throw tooManyEvents(limits);
          pending.push({ type: child, start: length.next, end: length.next + length.value });
        }
        at = length.next + length.value;
      } else {
        return;
      }
    }
  }
}

/** A varint's value (up to 2^53, enough for tags and lengths) and the offset after it. */
function readVarint(bytes: Uint8Array, start: number, end: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let at = start; at < end && at - start < 8; at++) {
    const byte = bytes[at]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next: at + 1 };
    scale *= 128;
  }
  return undefined;
}
