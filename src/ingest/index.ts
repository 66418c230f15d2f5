/**
 * Ingestion without HTTP: which adapter serves which route. The HTTP layer mounts every route under
 * each prefix (`/logs`, `/api/logs`, `/api/events`): `logs` is the bare prefix (`POST P`), every other
 * name is `P/<name>`.
 */
import type { Adapter } from './adapter.ts';
import { cloudflareAdapter } from './cloudflare.ts';
import { githubAdapter } from './github.ts';
import { jsonAdapter } from './json.ts';
import { logflareAdapter } from './logflare.ts';
import { logplexAdapter } from './logplex.ts';
import { vectorAdapter } from './vector.ts';
import { vercelAdapter } from './vercel.ts';

const ADAPTERS = {
  logs: logflareAdapter,
  json: jsonAdapter,
  vercel: vercelAdapter,
  zeit: vercelAdapter,
  github: githubAdapter,
  cloudflare: cloudflareAdapter,
  vector: vectorAdapter,
  logplex: logplexAdapter,
} as const satisfies Record<string, Adapter>;

export type IngestRoute = keyof typeof ADAPTERS;

/** Every route name, `logs` (the bare prefix) first. */
export const INGEST_ROUTES = Object.keys(ADAPTERS) as IngestRoute[];

export function isIngestRoute(route: string): route is IngestRoute {
  return Object.hasOwn(ADAPTERS, route);
}

/** The adapter for a route name, or undefined for an unknown route. */
export function adapterFor(route: string): Adapter | undefined {
  return isIngestRoute(route) ? ADAPTERS[route] : undefined;
}

export type { Adapter, AdapterInput, BodyRouting, RawEvent, RawEventResult, RawEvents } from './adapter.ts';
export { decodeBody, type BodyHeaders, type DecodedBody, type NdjsonLine } from './decode.ts';
export { verifyGithubSignature } from './github.ts';
