import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { canManage } from '../../catalog/access.ts';
import { Explorer, IngestMeter, MAX_BUCKETS, MAX_PAGE, parseTime } from '../../explorer/service.ts';
import { MAX_QUERY_LENGTH } from '../../explorer/lql.ts';
import { callerOf } from '../fairness.ts';
import type { Services } from '../services.ts';
import { readableSource, requireReader } from './explorer-access.ts';

/** Explorer queries are interactive: a person is waiting, so they give up sooner than endpoints may. */
const EXPLORER_TIMEOUT_MS = 20_000;

const text = z.string().max(MAX_QUERY_LENGTH).optional().default('');
const eventsInput = z.object({
  q: text,
  from: z.string().max(64).optional(),
  to: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional().default(100),
  before: z.string().max(256).optional(),
});
const volumeInput = z.object({
  q: text,
  from: z.string().max(64).optional(),
  to: z.string().max(64).optional(),
  buckets: z.coerce.number().int().min(1).max(MAX_BUCKETS).optional(),
});

type Params = { Params: { token: string } };

/** What the console and the CLI read: per-source totals, pages of events, volume per bucket. */
export default async function explorerRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const explorer = new Explorer(services.warehouse, services.dialect, { queryTimeoutMs: EXPLORER_TIMEOUT_MS });
  const meter = new IngestMeter();
  const stopMetering = services.writer.onCommitted((sourceId, count) => meter.record(sourceId, count));
  app.addHook('onClose', async () => void stopMetering());
  // Queries are built from the schema, which grows as acknowledged events are folded in. Only a
  // caller that may read waits for (and so forces) a fold: anonymous requests must not defeat batching.
  app.addHook('preHandler', async (request) => {
    requireReader(services, request);
    await services.writer.readBarrier();
  });

  /** What the presented key may do, so the console shows only what works. */
  app.get('/api/explorer/key', async (request) => {
    const principal = requireReader(services, request);
    return { scopes: principal.scopes, manage: canManage(principal) };
  });

  app.get('/api/explorer/sources', async (request) => {
    const principal = requireReader(services, request);
    const sources = services.catalog.listSources(principal.ownerId);
    const described = async (source: (typeof sources)[number]) => ({
      id: source.id,
      token: source.token,
      name: source.name,
      description: source.description,
      retention_days: source.retention_days,
      ...(await explorer.totals(source.token)),
      events_last_minute: meter.lastMinute(source.token),
    });
    return services.fairness.run(callerOf(request, principal), EXPLORER_TIMEOUT_MS, () => Promise.all(sources.map(described)));
  });

  app.get<Params>('/api/sources/:token/events', async (request) => {
    const principal = requireReader(services, request);
    const source = readableSource(services, principal, request.params.token);
    const input = eventsInput.parse(request.query);
    const options = { q: input.q, fromMicros: parseTime('from', input.from), toMicros: parseTime('to', input.to), limit: input.limit, before: input.before };
    return services.fairness.run(callerOf(request, principal), EXPLORER_TIMEOUT_MS, () => explorer.events(source.token, options));
  });

  app.get<Params>('/api/sources/:token/volume', async (request) => {
    const principal = requireReader(services, request);
    const source = readableSource(services, principal, request.params.token);
    const input = volumeInput.parse(request.query);
    const toMicros = parseTime('to', input.to) ?? Date.now() * 1000;
    const fromMicros = parseTime('from', input.from) ?? toMicros - 3600 * 1e6;
    return services.fairness.run(callerOf(request, principal), EXPLORER_TIMEOUT_MS, () => explorer.volume(source.token, { q: input.q, fromMicros, toMicros, buckets: input.buckets }));
  });
}
