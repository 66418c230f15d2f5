import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { redactUrl } from './auth.ts';
import { registerErrorHandling } from './errors.ts';
import accessTokenRoutes from './routes/access-tokens.ts';
import consoleRoutes from './routes/console.ts';
import endpointRoutes from './routes/endpoints.ts';
import explorerRoutes from './routes/explorer.ts';
import healthRoutes from './routes/health.ts';
import ingestRoutes from './routes/ingest.ts';
import otlpRoutes from './routes/otlp.ts';
import sourceRoutes from './routes/sources.ts';
import vercelRoutes, { vercelVerifyOnSend } from './routes/vercel.ts';
import tailRoutes from './routes/tail.ts';
import type { Services } from './services.ts';

export interface HttpOptions {
  logLevel: string;
  /** Whole-request deadline, so a slow client cannot hold a connection forever. */
  requestTimeoutMs?: number;
  /** Deadline for a request's headers, so a client trickling them (slowloris) cannot either. */
  headersTimeoutMs?: number;
}

export async function buildApp(services: Services, options: HttpOptions): Promise<FastifyInstance> {
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const app = Fastify({
    http: {
      headersTimeout,
      requestTimeout,
      // Node enforces both deadlines only when it sweeps its connections (every 30 s by default),
      // which would let a slow client overstay a 10 s deadline threefold.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    logger: {
      level: options.logLevel,
      serializers: {
        // Keys travel in headers and in ?api_key=: log neither.
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
      },
    },
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
  // A response finished after shutdown began would leave its keep-alive connection open, and the
  // server's close would wait out keepAliveTimeout (65 s) before the process could exit.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!services.isReady()) void reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onSend', vercelVerifyOnSend);
  releaseYoungGenerationWhenIdle(app);
  await app.register(healthRoutes, { services });
  await app.register(sourceRoutes, { services });
  await app.register(accessTokenRoutes, { services });
  await app.register(endpointRoutes, { services });
  await app.register(ingestRoutes, { services });
  await app.register(otlpRoutes, { services });
  await app.register(vercelRoutes, { services });
  await app.register(explorerRoutes, { services });
  await app.register(tailRoutes, { services });
  await app.register(consoleRoutes);
  return app;
}

// ---- idle memory ----

/** No request for this long counts as idle. */
const IDLE_AFTER_MS = 1_000;
const IDLE_CHECK_MS = 1_000;
/** A young generation above this has been grown (V8 starts it at 2 x 1 MB). */
const GROWN_YOUNG_GENERATION_BYTES = 4 * 1024 * 1024;

/**
 * V8 grows its young generation (two semi-spaces, up to 2 x 16 MB) while start-up or load
 * allocates fast, and gives it back only at a GC that finds allocation slow over the last 5 s;
 * an idle server runs no GC, so the 32 MB stayed resident for good (measured: idle RSS 168 MB,
 * 138-148 MB once released). So while no request has come for a second and the young generation
 * is still grown, a scavenge (1-5 ms) runs every second: the first clears what start-up or the
 * load left, and the one 5 s later, with allocation slow, lets V8 shrink the young generation.
 * Under load nothing runs, so throughput keeps the full young generation (capping it instead
 * with --max-semi-space-size=2 cost ~10% of batched ingest throughput).
 */
function releaseYoungGenerationWhenIdle(app: FastifyInstance): void {
  const scavenge = minorGc();
  if (!scavenge) return;
  let lastRequest = performance.now();
  app.addHook('onRequest', (_request, _reply, done) => {
    lastRequest = performance.now();
    done();
  });
  const timer = setInterval(() => {
    if (performance.now() - lastRequest < IDLE_AFTER_MS) return;
    if (youngGenerationBytes() > GROWN_YOUNG_GENERATION_BYTES) scavenge();
  }, IDLE_CHECK_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** V8's gc() without --expose-gc on the command line: the flag is set just long enough to fetch it into a throwaway context. */
function minorGc(): (() => void) | undefined {
  const exposed = process.execArgv.includes('--expose-gc');
  try {
    if (!exposed) setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc !== 'function') return undefined;
    return () => (gc as (options: { type: 'minor' }) => void)({ type: 'minor' });
  } catch {
    return undefined;
  } finally {
    if (!exposed) setFlagsFromString('--no-expose-gc');
  }
}
