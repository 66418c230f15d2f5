import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

/**
 * 200 `ok` when events are being stored; 503 `degraded` with the reasons while they cannot be
 * (a full disk: queries still answer from what is stored), and 503 `unavailable` while starting
 * or stopping.
 */
export default async function healthRoutes(app: FastifyInstance, { services }: { services: Services }) {
  app.get('/health', async (_request, reply) => {
    if (!services.isReady()) return reply.status(503).send({ status: 'unavailable' });
    const problems = services.problems();
    return problems.length === 0 ? { status: 'ok' } : reply.status(503).send({ status: 'degraded', problems });
  });
}
