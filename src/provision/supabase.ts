import { readFileSync } from 'node:fs';
import type { Catalog } from '../catalog/types.ts';
import type { EndpointService } from '../endpoints/service.ts';
import { schemaForRows } from '../warehouse/schema.ts';
import type { JsonValue, RecordFields, Warehouse } from '../warehouse/types.ts';
import { BUILTIN_ENDPOINTS, builtinsAddedAfter, builtinsSandboxableAfter } from './builtin-endpoints.ts';

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
 * The columns each Supabase source starts with, taken from a sample event of its kind, so the
 * built-in endpoints can be queried before the first event arrives.
 */
function initialSchema(sourceName: string): RecordFields {
  const sample = JSON.parse(readFileSync(new URL(`./supabase-samples/${sourceName}.json`, import.meta.url), 'utf8')) as Record<string, JsonValue>;
  const { event_message: _message, id: _id, timestamp: _timestamp, ...fields } = sample;
  return schemaForRows(new Map(), [{ fields }]);
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
