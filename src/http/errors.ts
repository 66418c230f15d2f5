import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { AppError } from '../errors.ts';
import { diskFull, isDiskFull } from '../storage/disk.ts';

/**
 * Every reply is JSON, errors included, because Logflare clients parse every body.
 * Ingestion and query routes answer `{"error": {"code", "message"}}`; management routes keep
 * Logflare's shapes (`{"error": "Not Found", "message"}`, 422 `{"errors": {field: [messages]}}`).
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answer errors in Logflare's management API shapes. */
    managementErrors?: boolean;
  }
}

const FASTIFY_CODES: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json' },
};

function toAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) return validationError(error);
  const known = 'code' in error && typeof error.code === 'string' ? FASTIFY_CODES[error.code] : undefined;
  if (known) return new AppError(known.status, known.code, error.message);
  if (isDiskFull(error)) return diskFull('the change was not saved');
  if (error instanceof SyntaxError) return new AppError(400, 'invalid_json', `body is not valid JSON: ${error.message}`);
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return new AppError(status, 'bad_request', error.message);
  return new AppError(500, 'internal', 'internal error');
}

export function validationError(error: ZodError): AppError {
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) (errors[issue.path.join('.') || 'body'] ??= []).push(issue.message);
  const summary = Object.entries(errors).map(([field, messages]) => `${field}: ${messages.join(', ')}`).join('; ');
  return new AppError(422, 'unprocessable', summary, { errors });
}

function body(error: AppError, management: boolean): unknown {
  // Logflare's clients read `error`; `message` says what was not found.
  if (management && error.status === 404) return { error: 'Not Found', message: error.message };
  if (management && error.status === 422) {
    // A query refused at save time also says where: {"errors": {"query": [...]}, "line": 1, "column": 8}.
    const { line, column } = error.details ?? {};
    return { errors: error.details?.errors ?? { body: [error.message] }, ...(line !== undefined && column !== undefined ? { line, column } : {}) };
  }
  const { retryAfterSeconds: _retry, errors: _errors, ...extra } = error.details ?? {};
  return { error: { code: error.code, message: error.message, ...extra } };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const error = toAppError(raw);
    if (error.status >= 500 && error.code === 'internal') request.log.error({ err: raw }, 'request failed');
    const retryAfter = error.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    return reply.status(error.status).send(body(error, request.routeOptions.config?.managementErrors === true));
  });
  app.setNotFoundHandler((request, reply) => {
    const management = /^\/api\/(sources|access-tokens|endpoints)(\/|$)/.test(request.url) && !request.url.startsWith('/api/endpoints/query');
    const error = new AppError(404, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(body(error, management));
  });
}
