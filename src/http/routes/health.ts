import type { FastifyInstance } from 'fastify';
import { SAWMILL_VERSION } from '../../data-format.ts';
import type { Services } from '../services.ts';

/**
 * 200 `ok` when events are being stored; 503 `degraded` with the reasons while they cannot be
 * (a full disk: queries still answer from what is stored), and 503 `unavailable` while starting
 * or stopping. Every answer carries the running version.
 */
export default async function healthRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const version = SAWMILL_VERSION;
  app.get('/health', async (_request, reply) => {
    if (!services.isReady()) return reply.status(503).send({ status: 'unavailable', version });
    const problems = services.problems();
    return problems.length === 0 ? { status: 'ok', version } : reply.status(503).send({ status: 'degraded', version, problems });
  });
}
