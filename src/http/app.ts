import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '../log.ts';
import { registerErrorHandling } from './errors.ts';
import { logEachRequest, loggedUrl } from './request-log.ts';
import { releaseYoungGenerationWhenIdle } from './idle-memory.ts';
import accessTokenRoutes from './routes/access-tokens.ts';
import backupRoutes from './routes/backup.ts';
import consoleRoutes from './routes/console.ts';
import endpointRoutes from './routes/endpoints.ts';
import explorerRoutes from './routes/explorer.ts';
import healthRoutes from './routes/health.ts';
import ingestRoutes from './routes/ingest.ts';
import metricsRoutes from './routes/metrics.ts';
import otlpRoutes from './routes/otlp.ts';
import sourceRoutes from './routes/sources.ts';
import vercelRoutes, { vercelVerifyOnSend } from './routes/vercel.ts';
import tailRoutes from './routes/tail.ts';
import type { Services } from './services.ts';

export interface HttpOptions {
  /** The service's log (src/log.ts): Fastify writes its lines there too. */
  log: Logger;
  /** Whole-request deadline, so a slow client cannot hold a connection forever. */
  requestTimeoutMs?: number;
  /** Deadline for a request's headers, so a client trickling them (slowloris) cannot either. */
  headersTimeoutMs?: number;
  /** Largest request line and headers together (Studio's GETs carry tens of KB of SQL). */
  maxHeaderBytes?: number;
}

export async function buildApp(services: Services, options: HttpOptions): Promise<FastifyInstance> {
  const isKey = (value: string) => services.keys.isKey(value);
  const maxHeaderBytes = options.maxHeaderBytes ?? 512 * 1024;
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const app = Fastify({
    http: {
      maxHeaderSize: maxHeaderBytes,
      headersTimeout,
      requestTimeout,
      // Node enforces both deadlines only when it sweeps its connections (every 30 s by default),
      // which would let a slow client overstay a 10 s deadline threefold.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    // Keys travel in headers, in ?api_key= and in some paths: log none of them.
    loggerInstance: options.log.child({}, { serializers: { req: (request: FastifyRequest) => ({ method: request.method, url: loggedUrl(request, isKey), remoteAddress: request.ip }) } }) as FastifyBaseLogger,
    // Fastify logs two lines a request (incoming, completed): one is enough, written below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: services.limits.maxBodyBytes,
    requestTimeout,
    connectionTimeout: 0,
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
    // What the router refuses before any route runs (a path parameter over 100 characters, a
    // malformed %-escape) is answered in the same JSON error shape as everything else.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      void (reply as FastifyReply).status(status).send({ error: { code: status === 414 ? 'uri_too_long' : 'bad_request', message: error.message } });
    },
    forceCloseConnections: 'idle',
  });
  registerErrorHandling(app);
  logEachRequest(app, isKey);
  // Node's parser did not always hold the request line to maxHeaderSize: a 600 KB line was once
  // answered 200 in a full test run on a loaded machine. The limit is checked here as well.
  app.addHook('onRequest', (request, reply, done) => {
    if ((request.raw.url?.length ?? 0) <= maxHeaderBytes) return done();
    void reply.status(431).send({ error: { code: 'header_too_large', message: `the request line is longer than ${maxHeaderBytes} bytes (SAWMILL_MAX_HEADER_BYTES)` } });
  });
  // A response finished after shutdown began would leave its keep-alive connection open, and the
  // server's close would wait out keepAliveTimeout (65 s) before the process could exit.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!services.isReady()) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onSend', vercelVerifyOnSend);
  releaseYoungGenerationWhenIdle(app);
  await app.register(healthRoutes, { services });
  await app.register(metricsRoutes, { services });
  await app.register(sourceRoutes, { services });
  await app.register(accessTokenRoutes, { services });
  await app.register(backupRoutes, { services });
  await app.register(endpointRoutes, { services });
  await app.register(ingestRoutes, { services });
  await app.register(otlpRoutes, { services });
  await app.register(vercelRoutes, { services });
  await app.register(explorerRoutes, { services });
  await app.register(tailRoutes, { services });
  await app.register(consoleRoutes);
  return app;
}
