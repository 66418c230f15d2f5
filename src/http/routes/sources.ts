import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { canManage, type Principal } from '../../catalog/access.ts';
import { sourceNameProblem } from '../../catalog/source-name.ts';
import type { Source } from '../../catalog/types.ts';
import { AppError } from '../../errors.ts';
import { describeFields } from '../../warehouse/schema.ts';
import { authenticate, forbidden } from '../auth.ts';
import type { Services } from '../services.ts';

const sourceFields = z.object({
  name: z
    .string()
    .trim()
    .superRefine((name, context) => {
      const problem = sourceNameProblem(name);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  description: z.string().max(10_000).nullable().optional(),
  retention_days: z.number().int().positive().nullable().optional(),
  webhook_secret: z.string().min(1).max(512).nullable().optional(),
});

/** The source as the API shows it: the webhook secret never leaves the service. */
export function sourceView({ webhook_secret, owner_id: _owner, ...source }: Source) {
  return { ...source, has_webhook_secret: webhook_secret !== null };
}

export function requireManager(services: Services, request: FastifyRequest): Principal {
  const principal = authenticate(services.keys, request);
  if (!canManage(principal)) throw forbidden('manage sources, endpoints or keys (needs the private scope)');
  return principal;
}

export default async function sourceRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const config = { managementErrors: true };
  const { catalog, warehouse } = services;

  /** By token or numeric id, as Logflare's API, or by name, as the explorer's routes take it. */
  const find = (request: FastifyRequest<{ Params: { token: string } }>) => {
    const principal = requireManager(services, request);
    const wanted = request.params.token;
    const source = catalog.getSource(principal.ownerId, wanted) ?? catalog.sourceByName(principal.ownerId, wanted);
    if (!source) throw new AppError(404, 'not_found', `no source "${wanted.slice(0, 256)}" (by token, id or name)`);
    return source;
  };

  app.get('/api/sources', { config }, async (request) => {
    const principal = requireManager(services, request);
    return catalog.listSources(principal.ownerId).map(sourceView);
  });

  app.post('/api/sources', { config }, async (request, reply) => {
    const principal = requireManager(services, request);
    const input = sourceFields.parse(request.body ?? {});
    const retention = input.retention_days === undefined ? services.sourceDefaults.retentionDays : input.retention_days;
    const source = await catalog.createSource(principal.ownerId, { ...input, retention_days: retention });
    try {
      await warehouse.createSource(source.token);
      if (source.retention_days !== null) await warehouse.setRetention?.(source.token, source.retention_days);
    } catch (error) {
      await catalog.deleteSource(source);
      throw error;
    }
    await services.endpoints.promote(principal.ownerId);
    return reply.status(201).send(sourceView(source));
  });

  app.get<{ Params: { token: string } }>('/api/sources/:token', { config }, async (request) => sourceView(find(request)));

  app.get<{ Params: { token: string } }>('/api/sources/:token/schema', { config }, async (request) => {
    const source = find(request);
    await services.writer.readBarrier(); // the schema grows as events are folded in
    const fixed = { id: { type: 'STRING', mode: 'NULLABLE' }, timestamp: { type: 'TIMESTAMP', mode: 'NULLABLE' }, event_message: { type: 'STRING', mode: 'NULLABLE' } };
    return { ...fixed, ...describeFields(warehouse.schema(source.token)) };
  });

  const update = (partial: boolean) => async (request: FastifyRequest<{ Params: { token: string } }>) => {
    const source = find(request);
    const changes = (partial ? sourceFields.partial() : sourceFields).parse(request.body ?? {});
    const updated = await catalog.updateSource(source, changes);
    if (changes.retention_days !== undefined) await warehouse.setRetention?.(source.token, updated.retention_days);
    return updated;
  };
  app.put<{ Params: { token: string } }>('/api/sources/:token', { config }, async (request) => sourceView(await update(false)(request)));
  app.patch<{ Params: { token: string } }>('/api/sources/:token', { config }, async (request, reply) => {
    await update(true)(request);
    return reply.status(204).send();
  });

  app.delete<{ Params: { token: string } }>('/api/sources/:token', { config }, async (request, reply) => {
    const source = find(request);
    await catalog.deleteSource(source);
    await warehouse.dropSource(source.token);
    return reply.status(204).send();
  });
}
