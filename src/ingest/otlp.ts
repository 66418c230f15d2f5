/**
 * OpenTelemetry logs over OTLP/HTTP (`POST /v1/logs`): request decoding, LogRecord → event, and the
 * replies OTLP exporters expect. Knows nothing about HTTP; the route in src/http/routes/otlp.ts
 * handles keys, sources and writing.
 *
 * One event per LogRecord:
 * - event_message = the body when it is a string, else the JSON text of the body ("" without one);
 * - timestamp = time_unix_nano, else observed_time_unix_nano, else the time of arrival;
 * - metadata = severity_text, severity_number, trace_id and span_id (lower-case hex), flags,
 *   event_name, observed_timestamp, attributes, resource (the resource's attributes), scope
 *   (name, version, attributes) and, when the body is not a string, body (its structured value).
 *   Empty and unset fields are left out, as OTLP itself treats them as absent.
 *
 * Both encodings decode to the same shape. Protobuf goes through protobufjs with the schema in
 * otlp/logs.proto; OTLP/JSON is plain JSON with the protocol's rules: lowerCamelCase keys (the
 * proto field names are accepted too), trace and span ids in hex, 64-bit integers as strings or
 * numbers, enums as integers (names are accepted too), bytes in base64.
 *
 * A request whose structure is wrong (not an ExportLogsServiceRequest) is refused whole; a
 * LogRecord that cannot become an event is rejected on its own and reported as partial success.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { AppError } from '../errors.ts';
import type { RawEventResult } from './adapter.ts';
import { mediaTypeOf } from './decode.ts';
import { toJsonText } from './json-text.ts';

export type OtlpEncoding = 'protobuf' | 'json';

const PROTOBUF_TYPES = new Set(['application/x-protobuf', 'application/protobuf', 'application/vnd.google.protobuf']);
export const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';
export const JSON_CONTENT_TYPE = 'application/json';

const schema = protobuf.parse(readFileSync(new URL('./otlp/logs.proto', import.meta.url), 'utf8')).root;
const ExportLogsServiceRequest = schema.lookupType('sawmill.otlp.ExportLogsServiceRequest');
const ExportLogsServiceResponse = schema.lookupType('sawmill.otlp.ExportLogsServiceResponse');
const Status = schema.lookupType('sawmill.otlp.Status');

/** AnyValue and attribute nesting deeper than this refuses the request (every level costs a few bytes). */
const MAX_VALUE_DEPTH = 64;

/** The encoding a request's Content-Type names; 415 for anything OTLP/HTTP does not define. */
export function otlpEncodingOf(contentType: string | undefined): OtlpEncoding {
  const mediaType = mediaTypeOf(contentType);
  if (PROTOBUF_TYPES.has(mediaType)) return 'protobuf';
  if (mediaType === 'application/json') return 'json';
  throw new AppError(
    415,
    'unsupported_media_type',
    `Content-Type ${mediaType || '(none)'} is not OTLP; send application/x-protobuf or application/json`,
  );
}

/** The encoding to answer in, even for a request whose Content-Type was refused: JSON unless it said protobuf. */
export function replyEncodingOf(contentType: string | undefined): OtlpEncoding {
  return PROTOBUF_TYPES.has(mediaTypeOf(contentType)) ? 'protobuf' : 'json';
}

// ---- decoding ----

/** A decoded protobuf request as plain objects: camelCase keys, 64-bit integers as strings, bytes as Uint8Array. */
export function decodeProtobufRequest(bytes: Uint8Array): unknown {
  try {
    const message = ExportLogsServiceRequest.decode(bytes);
    return ExportLogsServiceRequest.toObject(message, { longs: String, defaults: false });
  } catch (error) {
    // protobufjs recurses per nesting level; absurd nesting ends in a RangeError, which is the client's fault too.
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError(400, 'invalid_protobuf', `body is not an OTLP ExportLogsServiceRequest: ${reason}`);
  }
}

/**
 * One raw event (or the reason it was rejected) per LogRecord of a decoded request, in request
 * order. `request` is either `decodeProtobufRequest`'s result or a parsed OTLP/JSON body.
 */
export function otlpLogEvents(request: unknown): RawEventResult[] {
  try {
    return eventsOfRequest(request);
  } catch (error) {
    // Outside a LogRecord (resource, scope) a bad value spoils every record it applies to.
    if (error instanceof RecordError) throw structureError(error.message);
    throw error;
  }
}

/** LogRecords in a parsed OTLP/JSON request, counted before any event is built; 0 where the structure is wrong (refused later). */
export function otlpLogRecordCount(request: unknown): number {
  const lengths = (object: unknown, jsonName: string, protoName: string): unknown[] => {
    if (!isObject(object)) return [];
    const list = field(object, jsonName, protoName);
    return Array.isArray(list) ? list : [];
  };
  let count = 0;
  for (const resourceLogs of lengths(request, 'resourceLogs', 'resource_logs')) {
    for (const scopeLogs of lengths(resourceLogs, 'scopeLogs', 'scope_logs')) count += lengths(scopeLogs, 'logRecords', 'log_records').length;
  }
  return count;
}

function eventsOfRequest(request: unknown): RawEventResult[] {
  const body = expectObject(request, 'the request body');
  const events: RawEventResult[] = [];
  listField(body, 'resourceLogs', 'resource_logs', 'the request').forEach((resourceLogsValue, r) => {
    const resourceLogs = expectObject(resourceLogsValue, `resourceLogs[${r}]`);
    const resource = optionalObject(field(resourceLogs, 'resource'), `resourceLogs[${r}].resource`);
    const resourceAttributes = resource ? keyValues(field(resource, 'attributes'), `resourceLogs[${r}].resource.attributes`, 0) : {};
    listField(resourceLogs, 'scopeLogs', 'scope_logs', `resourceLogs[${r}]`).forEach((scopeLogsValue, s) => {
      const where = `resourceLogs[${r}].scopeLogs[${s}]`;
      const scopeLogs = expectObject(scopeLogsValue, where);
      const scope = scopeOf(optionalObject(field(scopeLogs, 'scope'), `${where}.scope`), `${where}.scope`);
      listField(scopeLogs, 'logRecords', 'log_records', where).forEach((record, l) => {
        events.push(logRecordEvent(record, `${where}.logRecords[${l}]`, resourceAttributes, scope));
      });
    });
  });
  return events;
}

function logRecordEvent(
  value: unknown,
  where: string,
  resourceAttributes: Record<string, unknown>,
  scope: Record<string, unknown>,
): RawEventResult {
  try {
    const record = expectObject(value, where);
    const metadata: Record<string, unknown> = {};
    const severityText = optionalString(field(record, 'severityText', 'severity_text'), `${where}.severityText`);
    if (severityText) metadata.severity_text = severityText;
    const severityNumber = severityNumberOf(field(record, 'severityNumber', 'severity_number'), `${where}.severityNumber`);
    if (severityNumber) metadata.severity_number = severityNumber;
    const traceId = idHex(field(record, 'traceId', 'trace_id'), 16, `${where}.traceId`);
    if (traceId) metadata.trace_id = traceId;
    const spanId = idHex(field(record, 'spanId', 'span_id'), 8, `${where}.spanId`);
    if (spanId) metadata.span_id = spanId;
    const flags = unsignedInteger(field(record, 'flags'), `${where}.flags`);
    if (flags) metadata.flags = Number(flags);
    const eventName = optionalString(field(record, 'eventName', 'event_name'), `${where}.eventName`);
    if (eventName) metadata.event_name = eventName;
    const attributes = keyValues(field(record, 'attributes'), `${where}.attributes`, 0);
    if (Object.keys(attributes).length > 0) metadata.attributes = attributes;
    if (Object.keys(resourceAttributes).length > 0) metadata.resource = resourceAttributes;
    if (Object.keys(scope).length > 0) metadata.scope = scope;
    const dropped = unsignedInteger(field(record, 'droppedAttributesCount', 'dropped_attributes_count'), `${where}.droppedAttributesCount`);
    if (dropped) metadata.dropped_attributes_count = Number(dropped);

    const bodyValue = field(record, 'body');
    const body = bodyValue === undefined || bodyValue === null ? undefined : anyValue(bodyValue, `${where}.body`, 0);
    if (body !== undefined && typeof body !== 'string') metadata.body = body;
    const event: Record<string, unknown> = {
      event_message: body === undefined ? '' : typeof body === 'string' ? body : toJsonText(body),
      metadata,
    };

    const time = unsignedInteger(field(record, 'timeUnixNano', 'time_unix_nano'), `${where}.timeUnixNano`);
    const observed = unsignedInteger(field(record, 'observedTimeUnixNano', 'observed_time_unix_nano'), `${where}.observedTimeUnixNano`);
    if (observed) metadata.observed_timestamp = isoFromNanos(observed);
    const eventTime = time || observed;
    if (eventTime) event.timestamp = isoFromNanos(eventTime);
    return { ok: true, event };
  } catch (error) {
    if (error instanceof RecordError) return { ok: false, error: error.message };
    throw error;
  }
}

function scopeOf(scope: Record<string, unknown> | undefined, where: string): Record<string, unknown> {
  if (!scope) return {};
  const result: Record<string, unknown> = {};
  const name = optionalString(field(scope, 'name'), `${where}.name`);
  if (name) result.name = name;
  const version = optionalString(field(scope, 'version'), `${where}.version`);
  if (version) result.version = version;
  const attributes = keyValues(field(scope, 'attributes'), `${where}.attributes`, 0);
  if (Object.keys(attributes).length > 0) result.attributes = attributes;
  return result;
}

// ---- values ----

/** A problem inside one LogRecord: that record is rejected, the others are kept. */
class RecordError extends Error {}

/**
 * Structure errors outside LogRecords (the envelopes) refuse the request; inside a LogRecord the
 * same helpers throw RecordError through `logRecordEvent`, which turns it into a rejection.
 */
function structureError(message: string): AppError {
  return new AppError(400, 'invalid_otlp', message);
}

/** The value of a field under its JSON name or, failing that, its proto name. */
function field(object: Record<string, unknown>, jsonName: string, protoName?: string): unknown {
  if (Object.hasOwn(object, jsonName)) return object[jsonName];
  return protoName !== undefined && Object.hasOwn(object, protoName) ? object[protoName] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function expectObject(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw structureError(`${where} must be an object`);
  return value;
}

function optionalObject(value: unknown, where: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  return expectObject(value, where);
}

function listField(object: Record<string, unknown>, jsonName: string, protoName: string, where: string): unknown[] {
  const value = field(object, jsonName, protoName);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw structureError(`${where}.${jsonName} must be an array`);
  return value;
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new RecordError(`${where} must be a string`);
  return value;
}

/** fixed64 / uint32 / int64 fields: a decimal string or a number in JSON, a string after protobufjs. */
function unsignedInteger(value: unknown, where: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return BigInt(value);
  throw new RecordError(`${where} must be an unsigned integer, got ${JSON.stringify(value)?.slice(0, 64)}`);
}

/** Nanoseconds since the epoch as ISO 8601 with microseconds, the precision events are stored with. */
export function isoFromNanos(nanos: bigint): string {
  const micros = nanos / 1000n;
  const iso = new Date(Number(micros / 1000n)).toISOString();
  return `${iso.slice(0, -1)}${String(micros % 1000n).padStart(3, '0')}Z`;
}

const SEVERITY_BASE: Record<string, number> = { TRACE: 1, DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 };

/** SeverityNumber: an integer 0-24, or its enum name (`SEVERITY_NUMBER_WARN2`) as proto3 JSON allows. */
function severityNumberOf(value: unknown, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 24) return value;
  if (typeof value === 'string') {
    if (value === 'SEVERITY_NUMBER_UNSPECIFIED') return 0;
    const match = /^SEVERITY_NUMBER_(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)([2-4])?$/.exec(value);
    if (match) return SEVERITY_BASE[match[1]!]! + (match[2] ? Number(match[2]) - 1 : 0);
  }
  throw new RecordError(`${where} must be a SeverityNumber (0-24), got ${JSON.stringify(value)?.slice(0, 64)}`);
}

/**
 * Trace and span ids as lower-case hex. Protobuf gives bytes; OTLP/JSON gives hex, but proto3's own
 * JSON mapping (used by some hand-rolled senders) gives base64, so that is accepted as well.
 * All-zero and empty ids mean "no id".
 */
function idHex(value: unknown, length: number, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  let hex: string | undefined;
  if (value instanceof Uint8Array) {
    if (value.length === 0) return undefined;
    if (value.length === length) hex = Buffer.from(value).toString('hex');
  } else if (typeof value === 'string') {
    if (value === '') return undefined;
    if (value.length === length * 2 && /^[0-9a-f]+$/i.test(value)) hex = value.toLowerCase();
    else if (/^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
      const bytes = Buffer.from(value, 'base64');
      if (bytes.length === length) hex = bytes.toString('hex');
    }
  }
  if (hex === undefined) throw new RecordError(`${where} must be ${length} bytes (${length * 2} hex digits)`);
  return /^0+$/.test(hex) ? undefined : hex;
}

/**
 * An AnyValue as plain JSON: strings, booleans, numbers (int64 beyond 2^53 stays a decimal string
 * rather than losing digits), arrays, objects for key-value lists, base64 text for bytes.
 * An AnyValue with no value set is undefined.
 */
function anyValue(value: unknown, where: string, depth: number): unknown {
  if (depth > MAX_VALUE_DEPTH) throw structureError(`${where} is nested more than ${MAX_VALUE_DEPTH} levels deep`);
  if (!isObject(value)) throw new RecordError(`${where} must be an AnyValue object`);
  const string = field(value, 'stringValue', 'string_value');
  if (string !== undefined && string !== null) return optionalString(string, where);
  const bool = field(value, 'boolValue', 'bool_value');
  if (bool !== undefined && bool !== null) {
    if (typeof bool !== 'boolean') throw new RecordError(`${where}.boolValue must be a boolean`);
    return bool;
  }
  const int = field(value, 'intValue', 'int_value');
  if (int !== undefined && int !== null) return signedInteger(int, `${where}.intValue`);
  const double = field(value, 'doubleValue', 'double_value');
  if (double !== undefined && double !== null) {
    // proto3 JSON writes non-finite doubles as "NaN", "Infinity", "-Infinity".
    const number = typeof double === 'string' ? Number(double) : double;
    if (typeof number !== 'number' || (Number.isNaN(number) && double !== 'NaN')) throw new RecordError(`${where}.doubleValue must be a number`);
    return Number.isFinite(number) ? number : String(number);
  }
  const array = field(value, 'arrayValue', 'array_value');
  if (array !== undefined && array !== null) {
    const list = isObject(array) ? field(array, 'values') : undefined;
    if (list !== undefined && !Array.isArray(list)) throw new RecordError(`${where}.arrayValue.values must be an array`);
    return (list ?? []).map((item, i) => anyValue(item, `${where}.arrayValue.values[${i}]`, depth + 1) ?? null);
  }
  const kvlist = field(value, 'kvlistValue', 'kvlist_value');
  if (kvlist !== undefined && kvlist !== null) {
    return keyValues(isObject(kvlist) ? field(kvlist, 'values') : undefined, `${where}.kvlistValue.values`, depth + 1);
  }
  const bytes = field(value, 'bytesValue', 'bytes_value');
  if (bytes !== undefined && bytes !== null) {
    if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
    if (typeof bytes === 'string') return bytes;
    throw new RecordError(`${where}.bytesValue must be base64 text`);
  }
  return undefined;
}

function signedInteger(value: unknown, where: string): number | string {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text)) throw new RecordError(`${where} must be an integer`);
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : text;
}

/** A list of KeyValue as one object; a repeated key keeps its last value, as OTLP receivers commonly do. */
function keyValues(list: unknown, where: string, depth: number): Record<string, unknown> {
  if (list === undefined || list === null) return {};
  if (!Array.isArray(list)) throw new RecordError(`${where} must be an array of key-value pairs`);
  const entries: Array<[string, unknown]> = [];
  list.forEach((item, i) => {
    if (!isObject(item) || typeof field(item, 'key') !== 'string') throw new RecordError(`${where}[${i}] must be {"key": string, "value": AnyValue}`);
    const raw = field(item, 'value');
    const value = raw === undefined || raw === null ? undefined : anyValue(raw, `${where}[${i}].value`, depth + 1);
    entries.push([field(item, 'key') as string, value ?? null]);
  });
  // fromEntries defines properties, so a "__proto__" key stays an ordinary key.
  return Object.fromEntries(entries);
}

// ---- replies ----

export interface PartialSuccess {
  rejectedLogRecords: number;
  errorMessage: string;
}

/**
 * ExportLogsServiceResponse. Full success is the empty message (no bytes, or `{}` in JSON), as
 * the specification asks; `partial_success` is set only when records were rejected.
 */
export function encodeExportResponse(encoding: OtlpEncoding, partial?: PartialSuccess): Buffer | string {
  const partialSuccess = partial && partial.rejectedLogRecords > 0 ? partial : undefined;
  if (encoding === 'json') {
    // int64 fields are decimal strings in proto3 JSON; every OTLP JSON reader takes those.
    return JSON.stringify(
      partialSuccess ? { partialSuccess: { rejectedLogRecords: String(partialSuccess.rejectedLogRecords), errorMessage: partialSuccess.errorMessage } } : {},
    );
  }
  const message = ExportLogsServiceResponse.fromObject(partialSuccess ? { partialSuccess } : {});
  return Buffer.from(ExportLogsServiceResponse.encode(message).finish());
}

/** gRPC status codes, which OTLP/HTTP error bodies carry in google.rpc.Status. */
function grpcCodeFor(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
    case 413:
    case 415:
      return 3; // INVALID_ARGUMENT
    case 401:
      return 16; // UNAUTHENTICATED
    case 403:
      return 7; // PERMISSION_DENIED
    case 404:
      return 5; // NOT_FOUND
    case 429:
      return 8; // RESOURCE_EXHAUSTED
    case 503:
      return 14; // UNAVAILABLE
    default:
      return httpStatus >= 500 ? 13 : 2; // INTERNAL, UNKNOWN
  }
}

/** The google.rpc.Status body of an OTLP/HTTP error reply. */
export function encodeErrorStatus(encoding: OtlpEncoding, httpStatus: number, message: string): Buffer | string {
  const status = { code: grpcCodeFor(httpStatus), message };
  if (encoding === 'json') return JSON.stringify(status);
  return Buffer.from(Status.encode(Status.fromObject(status)).finish());
}

/** For tests and tools: decode a reply this module encoded. */
export function decodeExportResponse(bytes: Uint8Array): unknown {
  return ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(bytes), { longs: Number });
}

export function decodeErrorStatus(bytes: Uint8Array): unknown {
  return Status.toObject(Status.decode(bytes));
}
