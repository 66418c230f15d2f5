/**
 * Supabase's analytics overlay (docker/docker-compose.logs.yml) sets Logflare's environment on the
 * `analytics` service, and a compose override that swaps the image keeps it. Two of those settings
 * mean something here (LOGFLARE_PUBLIC_ACCESS_TOKEN is the ingest key, LOGFLARE_PRIVATE_ACCESS_TOKEN
 * the private key, read in config.ts); the rest configure Logflare's own Postgres or BigQuery
 * backend, its clustering and its modes, which Sawmill has no counterpart for. They are accepted
 * and named once at start, never a reason to refuse to start.
 */
const LOGFLARE_PREFIXES = ['LOGFLARE_', 'DB_', 'POSTGRES_BACKEND_', 'GOOGLE_'];
const READ_HERE = new Set(['LOGFLARE_PUBLIC_ACCESS_TOKEN', 'LOGFLARE_PRIVATE_ACCESS_TOKEN']);

/**
 * The oldest stacks' one key, which the Supabase overlay passes on as LOGFLARE_PRIVATE_ACCESS_TOKEN
 * (deploy/supabase/docker-compose.sawmill.yml): used, then, not ignored.
 */
const passedOn = (name: string, env: Record<string, string | undefined>) => name === 'LOGFLARE_API_KEY' && env[name] === env.LOGFLARE_PRIVATE_ACCESS_TOKEN;

/** The Logflare settings present in `env` that Sawmill does not use, sorted. */
export function ignoredLogflareSettings(env: Record<string, string | undefined>): string[] {
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && !READ_HERE.has(name) && !passedOn(name, env) && LOGFLARE_PREFIXES.some((prefix) => name.startsWith(prefix)))
    .sort();
}

/** The one start-up line naming them, or undefined when there are none. */
export function ignoredLogflareSettingsMessage(env: Record<string, string | undefined>): string | undefined {
  const ignored = ignoredLogflareSettings(env);
  if (ignored.length === 0) return undefined;
  return `Logflare settings with no meaning here, ignored: ${ignored.join(', ')} (Sawmill keeps its own storage in SAWMILL_DATA_DIR; docs/supabase.md)`;
}
