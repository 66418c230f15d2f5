/**
 * Supabase's self-hosted stack as it ships today, as facts for the tests: the environment its
 * analytics overlay (docker/docker-compose.logs.yml, Logflare 1.43) gives the `analytics` service,
 * with the `.env` values filled in, and a YAML reader for our compose files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const STACK_PUBLIC_TOKEN = 'stack-public-token-0123456789';
export const STACK_PRIVATE_TOKEN = 'stack-private-token-0123456789';

/** Logflare's settings on the `analytics` service, which a compose override that swaps the image keeps. */
export const LOGFLARE_ENVIRONMENT: Record<string, string> = {
  LOGFLARE_NODE_HOST: '127.0.0.1',
  DB_USERNAME: 'supabase_admin',
  DB_DATABASE: '_supabase',
  DB_HOSTNAME: 'db',
  DB_PORT: '5432',
  DB_PASSWORD: 'your-super-secret-and-long-postgres-password',
  DB_SCHEMA: '_analytics',
  LOGFLARE_SINGLE_TENANT: 'true',
  LOGFLARE_SUPABASE_MODE: 'true',
  LOGFLARE_PUBLIC_ACCESS_TOKEN: STACK_PUBLIC_TOKEN,
  LOGFLARE_PRIVATE_ACCESS_TOKEN: STACK_PRIVATE_TOKEN,
  LOGFLARE_FEATURE_FLAG_OVERRIDE: 'multibackend=true',
  POSTGRES_BACKEND_URL: 'postgresql://supabase_admin:your-super-secret-and-long-postgres-password@db:5432/_supabase',
  POSTGRES_BACKEND_SCHEMA: '_analytics',
};

/** The health check Supabase's overlay gives the `analytics` service. */
export const STACK_HEALTH_CHECK = ['CMD-SHELL', 'curl -sSfL -o /dev/null http://localhost:4000/health'];

/**
 * A YAML file as plain data, read by Python's PyYAML (Debian's python3-yaml, on the project's
 * machines and installed by .ci/run if missing): the repository has no YAML parser of its own.
 */
export function readYaml(path: string): any {
  const text = readFileSync(path, 'utf8');
  const json = execFileSync('python3', ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], { input: text, encoding: 'utf8' });
  return JSON.parse(json);
}

/**
 * `${NAME}`, `${NAME:-default}` and `${NAME?message}` filled in from `env`, as Compose does,
 * nested ones too (`${A:-${B:-}}`): the innermost first, until none is left.
 */
export function interpolate(value: string, env: Record<string, string>): string {
  const innermost = /\$\{([A-Z0-9_]+)(?:(:?-)([^${}]*)|(:?\?)([^${}]*))?\}/g;
  for (let previous = ''; previous !== value; ) {
    previous = value;
    value = value.replace(innermost, (_match, name: string, _dash, fallback: string | undefined) => env[name] || fallback || '');
  }
  return value;
}

/**
 * The `analytics` service as Supabase's stack had it before the logs overlay, in its main
 * docker-compose.yml (Logflare 1.4 to 1.14): the same settings, except that the oldest stacks
 * had one key, `LOGFLARE_API_KEY`, which Studio and Vector (`api_key=` in vector.yml) both sent.
 */
export const OLDEST_LOGFLARE_ENVIRONMENT: Record<string, string> = Object.fromEntries([
  ...Object.entries(LOGFLARE_ENVIRONMENT).filter(([name]) => name !== 'LOGFLARE_PUBLIC_ACCESS_TOKEN' && name !== 'LOGFLARE_PRIVATE_ACCESS_TOKEN'),
  ['LOGFLARE_API_KEY', 'stack-single-key-0123456789'],
  ['RELEASE_COOKIE', 'cookie'],
]);
