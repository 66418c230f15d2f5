/**
 * `POST /v1/logs`: OpenTelemetry logs over OTLP/HTTP, protobuf or JSON, optionally gzip.
 *
 * Key: `Authorization: Bearer`, `X-API-KEY` or `?api_key=`, as everywhere. Source: `?source=`,
 * `?source_name=`, else the `x-source` header (exporters set headers far more easily than URLs).
 *
 * Replies follow the OTLP/HTTP specification rather than Logflare's shapes, because OTLP
 * exporters are the only callers: success is an ExportLogsServiceResponse (empty, or with
 * partial_success counting the rejected LogRecords), errors are a google.rpc.Status, both in the
 * encoding of the request. 429 and 503 carry Retry-After, which exporters honour when retrying.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canIngest } from '../../catalog/access.ts';
import type { Source } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import { decodeBody, decompress } from '../../ingest/decode.ts';
import {
  decodeProtobufRequest,
  encodeErrorStatus,
  encodeExportResponse,
  JSON_CONTENT_TYPE,
  otlpEncodingOf,
  otlpLogEvents,
  otlpLogRecordCount,
  PROTOBUF_CONTENT_TYPE,
  replyEncodingOf,
  type OtlpEncoding,
} from '../../ingest/otlp.ts';
import { assertEventCount, checkOtlpProtobuf } from '../../ingest/request-limits.ts';
import { normalizeEvent } from '../../pipeline/normalize.ts';
import type { LogRow } from '../../warehouse/types.ts';
import { authenticate, forbidden } from '../auth.ts';
import type { Services } from '../services.ts';
import { resolveSource, type Query } from '../source-routing.ts';
import { countedWrite, waitsForVisibility, countIngestRequests, noteIngestSource } from '../ingest-metrics.ts';

/** How many rejection reasons the partial-success message lists before summarising. */
const REASONS_SHOWN = 5;

function send(reply: FastifyReply, encoding: OtlpEncoding, status: number, body: Buffer | string): FastifyReply {
  return reply
    .status(status)
    .header('content-type', encoding === 'protobuf' ? PROTOBUF_CONTENT_TYPE : JSON_CONTENT_TYPE)
    .send(body);
}

function asAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  const status = (error as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) return new AppError(status, 'bad_request', error.message);
  return new AppError(500, 'internal', 'internal error');
}

export default async function otlpRoutes(app: FastifyInstance, { services }: { services: Services }) {
  // Raw bytes, whatever the type: protobuf and gzip bodies are decoded here, not by Fastify.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: services.limits.maxBodyBytes }, (_request, body, done) => done(null, body));

  countIngestRequests(app, services);
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const error = asAppError(raw);
    if (error.status >= 500) request.log.error({ err: raw }, 'OTLP request failed');
    const retryAfter = error.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    const encoding = replyEncodingOf(request.headers['content-type']);
    return send(reply, encoding, error.status, encodeErrorStatus(encoding, error.status, error.message));
  });

  app.post('/v1/logs', async (request, reply) => {
    const encoding = otlpEncodingOf(request.headers['content-type']);
    const principal = authenticate(services.keys, request);
    const header = request.headers['x-source'];
    const source = resolveSource(services, principal, request.query as Query, {}, Array.isArray(header) ? header[0] : header);
    const visible = waitsForVisibility(request.query);
    if (!canIngest(principal, source)) throw forbidden(`ingest into source ${source.token}`);
    noteIngestSource(request, source.name);

    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const contentEncoding = request.headers['content-encoding'];
    const { maxBodyBytes: limit, request: limits } = services.limits;
    let decoded: unknown;
    if (encoding === 'protobuf') {
      const bytes = await decompress(raw, contentEncoding, limit);
      checkOtlpProtobuf(bytes, limits);
      decoded = decodeProtobufRequest(bytes);
    } else {
      const body = await decodeBody(raw, { contentType: JSON_CONTENT_TYPE, contentEncoding }, limit, limits);
      decoded = body.kind === 'json' ? body.value : undefined;
      assertEventCount(otlpLogRecordCount(decoded), limits);
    }

    return store(source, decoded, reply, encoding, visible);
  });

  /** Not async and returns the write's promise: nothing parsed is held while the journal syncs (see EventWriter.write). */
  function store(source: Source, decoded: unknown, reply: FastifyReply, encoding: OtlpEncoding, visible: boolean) {
    const now = Date.now() * 1000;
    const rows: LogRow[] = [];
    const reasons: string[] = [];
    otlpLogEvents(decoded).forEach((event, index) => {
      if (!event.ok) return void reasons.push(event.error);
      const normalized = normalizeEvent(event.event, now);
      if (normalized.ok) rows.push(normalized.row);
      else reasons.push(`log record ${index}: ${normalized.error}`);
    });
    const more = reasons.length > REASONS_SHOWN ? `; and ${reasons.length - REASONS_SHOWN} more` : '';
    const partial = { rejectedLogRecords: reasons.length, errorMessage: reasons.slice(0, REASONS_SHOWN).join('; ') + more };
    return countedWrite(services, source, { rows }, reasons.length, () => send(reply, encoding, 200, encodeExportResponse(encoding, partial)), visible);
  }
}
