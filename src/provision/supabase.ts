import { readFileSync } from 'node:fs';
import type { Catalog } from '../catalog/types.ts';
import type { EndpointService } from '../endpoints/service.ts';
import { schemaForRows } from '../warehouse/schema.ts';
import type { JsonValue, RecordFields, Warehouse } from '../warehouse/types.ts';
import { BUILTIN_ENDPOINTS, builtinsAddedAfter, builtinsChangedAfter, builtinsSandboxableAfter } from './builtin-endpoints.ts';

/** The sources a self-hosted Supabase stack sends to, by name. */
export const SUPABASE_SOURCES = [
  'cloudflare.logs.prod',
  'postgres.logs',
  'deno-relay-logs',
  'deno-subhosting-events',
  'gotrue.logs.prod',
  'realtime.logs.prod',
  'storage.logs.prod.2',
  'postgREST.logs.prod',
  'pgbouncer.logs.prod',
] as const;

/**
 * Fields a source's events carry beyond its sample, which built-in endpoints read. The function
 * logs also hold the edge runtime's own events about a worker: when it ends, a Shutdown event
 * with why (`reason`), the CPU time it used (`cpu_time_used`, milliseconds) and its memory
 * (`memory_used`: `total`, `heap` and `external`, bytes), or an UncaughtException event with its
 * CPU time; functions.combined-stats charts them.
 */
const EXTRA_FIELDS: Record<string, Record<string, JsonValue>> = {
  'deno-subhosting-events': {
    metadata: { event_type: 'Shutdown', reason: 'EventLoopCompleted', cpu_time_used: 0, memory_used: { total: 0, heap: 0, external: 0 } },
  },
};

/**
 * The columns each Supabase source starts with, taken from a sample event of its kind (and the
 * fields above), so the built-in endpoints can be queried before the first event arrives.
 */
export function initialSchema(sourceName: string): RecordFields {
  const sample = JSON.parse(readFileSync(new URL(`./supabase-samples/${sourceName}.json`, import.meta.url), 'utf8')) as Record<string, JsonValue>;
  const { event_message: _message, id: _id, timestamp: _timestamp, ...fields } = sample;
  const extra = EXTRA_FIELDS[sourceName];
  return schemaForRows(new Map(), extra ? [{ fields }, { fields: extra }] : [{ fields }]);
}

/** First start: the nine Supabase sources and the built-in endpoints Studio calls, for the default owner. */
export async function provisionSupabase(
  ownerId: number,
  catalog: Catalog,
  warehouse: Warehouse,
  endpoints: EndpointService,
  defaults: { retentionDays: number | null } = { retentionDays: null },
): Promise<void> {
  for (const name of SUPABASE_SOURCES) {
    if (catalog.sourceByName(ownerId, name)) continue;
    const source = await catalog.createSource(ownerId, { name, description: 'Provisioned for Supabase self-hosting', retention_days: defaults.retentionDays });
    await warehouse.createSource(source.token);
    if (source.retention_days !== null) await warehouse.setRetention?.(source.token, source.retention_days);
    await warehouse.append([{ sourceId: source.token, schema: initialSchema(name), rows: [] }]);
  }
  for (const endpoint of BUILTIN_ENDPOINTS) {
    if (!catalog.endpointByName(ownerId, endpoint.name)) await endpoints.create(ownerId, endpoint);
  }
}

/**
 * Upgrading a data dir of an older format (0: made before the format marker): a Supabase
 * deployment (one that has the provisioned sources) gets the built-in endpoints added since,
 * unless it has endpoints of those names. Only on that upgrade: a built-in deleted later stays deleted.
 */
export async function provisionAddedEndpoints(ownerId: number, catalog: Catalog, endpoints: EndpointService, fromFormat: number): Promise<string[]> {
  if (!catalog.sourceByName(ownerId, 'deno-relay-logs')) return [];
  const missing = builtinsAddedAfter(fromFormat);
  const added = BUILTIN_ENDPOINTS.filter((endpoint) => missing.includes(endpoint.name) && !catalog.endpointByName(ownerId, endpoint.name));
  for (const endpoint of added) await endpoints.create(ownerId, endpoint);
  return added.map((endpoint) => endpoint.name);
}

/**
 * Upgrading a Supabase deployment from before `logs.all` and `usage.api-counts` were provisioned
 * sandboxable (a data dir of an older format; a shared catalog has no format and passes 0, once):
 * each one still as provisioned (never changed since it was created)
 * becomes sandboxable. One changed since is left as it is, since its owner may have chosen the
 * flag; it is returned in `kept` so the start can say so.
 */
export async function sandboxProvisionedEndpoints(
  ownerId: number,
  catalog: Catalog,
  endpoints: EndpointService,
  fromFormat: number,
): Promise<{ changed: string[]; kept: string[] }> {
  const result = { changed: [] as string[], kept: [] as string[] };
  if (!catalog.sourceByName(ownerId, 'deno-relay-logs')) return result;
  for (const name of builtinsSandboxableAfter(fromFormat)) {
    const endpoint = catalog.endpointByName(ownerId, name);
    if (!endpoint || endpoint.sandboxable) continue;
    if (endpoint.updated_at !== endpoint.inserted_at) {
      result.kept.push(name);
      continue;
    }
    await endpoints.update(endpoint, { sandboxable: true });
    result.changed.push(name);
  }
  return result;
}

/**
 * Upgrading a Supabase deployment from before a built-in endpoint's query changed (a data dir of
 * an older format; a shared catalog passes the format before the change, once): the provisioned
 * sources first gain the fields the built-ins read now (EXTRA_FIELDS; sources only ever widen),
 * then each changed built-in still as provisioned gets its new query. One its user changed since
 * is left as it is and returned in `kept`.
 */
export async function updateProvisionedQueries(
  ownerId: number,
  catalog: Catalog,
  warehouse: Warehouse,
  endpoints: EndpointService,
  fromFormat: number,
): Promise<{ changed: string[]; kept: string[] }> {
  const result = { changed: [] as string[], kept: [] as string[] };
  if (!catalog.sourceByName(ownerId, 'deno-relay-logs')) return result;
  for (const [name, fields] of Object.entries(EXTRA_FIELDS)) {
    const source = catalog.sourceByName(ownerId, name);
    if (source) await warehouse.append([{ sourceId: source.token, schema: schemaForRows(warehouse.schema(source.token), [{ fields }]), rows: [] }]);
  }
  for (const name of builtinsChangedAfter(fromFormat)) {
    const endpoint = catalog.endpointByName(ownerId, name);
    const builtin = BUILTIN_ENDPOINTS.find((candidate) => candidate.name === name)!;
    if (!endpoint || endpoint.query === builtin.query) continue;
    if (endpoint.updated_at !== endpoint.inserted_at) {
      result.kept.push(name);
      continue;
    }
    await endpoints.update(endpoint, { query: builtin.query });
    result.changed.push(name);
  }
  return result;
}
