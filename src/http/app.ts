import Fastify, { type FastifyInstance } from 'fastify';
import { redactUrl } from './auth.ts';
import { registerErrorHandling } from './errors.ts';
import accessTokenRoutes from './routes/access-tokens.ts';
import endpointRoutes from './routes/endpoints.ts';
import healthRoutes from './routes/health.ts';
import ingestRoutes from './routes/ingest.ts';
import otlpRoutes from './routes/otlp.ts';
import sourceRoutes from './routes/sources.ts';
import vercelRoutes, { vercelVerifyOnSend } from './routes/vercel.ts';
import type { Services } from './services.ts';

export interface HttpOptions {
  logLevel: string;
  /** Whole-request deadline, so a slow client cannot hold a connection forever. */
  requestTimeoutMs?: number;
}

export async function buildApp(services: Services, options: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: options.logLevel,
      serializers: {
        // Keys travel in headers and in ?api_key=: log neither.
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
      },
    },
    bodyLimit: services.limits.maxBodyBytes,
    requestTimeout: options.requestTimeoutMs ?? 60_000,
    connectionTimeout: 0,
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  registerErrorHandling(app);
  app.addHook('onSend', vercelVerifyOnSend);
  await app.register(healthRoutes, { services });
  await app.register(sourceRoutes, { services });
  await app.register(accessTokenRoutes, { services });
  await app.register(endpointRoutes, { services });
  await app.register(ingestRoutes, { services });
  await app.register(otlpRoutes, { services });
  await app.register(vercelRoutes, { services });
  return app;
}
