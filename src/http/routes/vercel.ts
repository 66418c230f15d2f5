/**
 * Vercel drain verification. When a custom log drain is added, Vercel shows a verification code
 * and checks that the drain URL answers with the response header `x-vercel-verify: <code>`.
 * Sawmill stores nothing per drain, so the code travels in the drain URL itself:
 *
 *   https://sawmill.example/logs/vercel?api_key=K&source=S&vercel_verify=<code>
 *
 * and is echoed on successful replies of the Vercel routes (`P/vercel`, `P/zeit` under every
 * prefix): on `GET` / `HEAD`, which answer the verification request without storing anything,
 * and on the `POST` deliveries through the `onSend` hook. Echoing a code from the URL proves
 * nothing by itself, so it is only sent once the key in the request has been accepted: the header
 * then says "someone holding a Sawmill key configured this drain", which is what Vercel asks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { canIngest } from '../../catalog/access.ts';
import { AppError } from '../../errors.ts';
import { authenticate, forbidden } from '../auth.ts';
import type { Services } from '../services.ts';
import { resolveSource, type Query } from '../source-routing.ts';

const PREFIXES = ['/logs', '/api/logs', '/api/events'];
const VERCEL_ROUTES = PREFIXES.flatMap((prefix) => [`${prefix}/vercel`, `${prefix}/zeit`]);
const VERCEL_ROUTE_SET = new Set(VERCEL_ROUTES);

/** Vercel's codes are hex digests; anything else is refused rather than echoed into a header. */
const VERIFY_CODE = /^[A-Za-z0-9_-]{1,256}$/;

function verifyCode(request: FastifyRequest): string | undefined {
  const code = (request.query as Query | undefined)?.vercel_verify;
  return code !== undefined && VERIFY_CODE.test(code) ? code : undefined;
}

/**
 * Adds `x-vercel-verify` to successful replies of the Vercel ingest routes. Registered on the root
 * instance so it also covers the POST routes, which live in the ingest plugin.
 */
export const vercelVerifyOnSend: onSendHookHandler = (request, reply, payload, done) => {
  const code = reply.statusCode < 300 && VERCEL_ROUTE_SET.has(request.routeOptions.url ?? '') ? verifyCode(request) : undefined;
  if (code !== undefined) void reply.header('x-vercel-verify', code);
  done(null, payload);
};

export default async function vercelRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const verify = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = authenticate(services.keys, request);
    const query = request.query as Query;
    if (query.vercel_verify === undefined) {
      throw new AppError(400, 'missing_verification_code', 'add vercel_verify=<the code Vercel shows> to the drain URL');
    }
    if (verifyCode(request) === undefined) {
      throw new AppError(400, 'invalid_verification_code', 'vercel_verify must be 1-256 letters, digits, "-" or "_"');
    }
    // Check the drain's source now, so a wrong URL fails at verification rather than on every delivery.
    if (query.source !== undefined || query.source_name !== undefined) {
      const source = resolveSource(services, principal, query, {}, undefined);
      if (!canIngest(principal, source)) throw forbidden(`ingest into source ${source.token}`);
    }
    return reply.send({ message: 'ok' });
  };
  for (const url of VERCEL_ROUTES) app.get(url, verify);
}
