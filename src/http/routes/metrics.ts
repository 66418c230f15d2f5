import type { FastifyInstance } from 'fastify';
import { canReadMetrics } from '../../catalog/access.ts';
import { authenticate, forbidden } from '../auth.ts';
import type { Services } from '../services.ts';

/** Prometheus scrapes this with `authorization: Bearer <key>`; the key needs the `metrics` or `private` scope. */
export default async function metricsRoutes(app: FastifyInstance, { services }: { services: Services }) {
  app.get('/metrics', async (request, reply) => {
    if (!canReadMetrics(authenticate(services.keys, request))) throw forbidden('read metrics (needs the metrics or private scope)');
    const text = await services.metrics.registry.render();
    return reply.type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text);
  });
}
