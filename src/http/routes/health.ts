import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export default async function healthRoutes(app: FastifyInstance, { services }: { services: Services }) {
  app.get('/health', async (_request, reply) =>
    services.isReady() ? { status: 'ok' } : reply.status(503).send({ status: 'unavailable' }),
  );
}
