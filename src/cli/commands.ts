import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { sourceNameProblem } from '../catalog/source-name.ts';
import { CliError, serverSentEvents, type ApiClient } from './client.ts';
import { isoFromMicros, table, timestampColumns } from './format.ts';
import type { CommandContext } from './main.ts';

interface SourceStats {
  id: number;
  token: string;
  name: string;
  events: number;
  last_event: number | null;
  events_last_minute: number;
  retention_days: number | null;
}

const retentionText = (days: number | null) => (days === null ? 'forever' : `${days} day${days === 1 ? '' : 's'}`);

/** `forever` or a whole number of days, as the API takes it. */
function parseRetention(text: string): number | null {
  if (text === 'forever') return null;
  const days = Number(text);
  if (!Number.isInteger(days) || days < 1) throw usage(`retention is a whole number of days (1 or more) or "forever", got "${text}"`);
  return days;
}

const usage = (text: string) => new CliError(`usage: ${text}`, 2);
const path = (value: string) => encodeURIComponent(value);

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

export async function sourcesCommand({ client, positionals, values, json, out }: CommandContext): Promise<void> {
  const [action, target] = positionals;
  switch (action) {
    case 'list':
    case undefined: {
      const sources = await client.request<SourceStats[]>('GET', '/api/explorer/sources');
      if (json) return out(JSON.stringify(sources, null, 2));
      const rows = sources.map((source) => ({
        id: source.id,
        name: source.name,
        token: source.token,
        events: source.events,
        'last minute': source.events_last_minute,
        'last event': isoFromMicros(source.last_event),
        retention: retentionText(source.retention_days),
      }));
      return out(table(rows, ['id', 'name', 'token', 'events', 'last minute', 'last event', 'retention']));
    }
    case 'create': {
      if (!target) throw usage('sawmill sources create <name> [--description TEXT] [--retention DAYS|forever]');
      const problem = sourceNameProblem(target.trim());
      if (problem) throw usage(`a source name ${problem}, got ${JSON.stringify(target)}`);
      const body = {
        name: target.trim(),
        ...(typeof values.description === 'string' ? { description: values.description } : {}),
        ...(typeof values.retention === 'string' ? { retention_days: parseRetention(values.retention) } : {}),
      };
      const source = await client.request<{ token: string; name: string }>('POST', '/api/sources', body);
      return out(json ? JSON.stringify(source, null, 2) : `created source ${source.name}: ${source.token}`);
    }
    case 'delete': {
      if (!target) throw usage('sawmill sources delete <name|token> [--yes]');
      // By name or token: the explorer's list resolves either to the token the management API wants.
      const sources = await client.request<SourceStats[]>('GET', '/api/explorer/sources');
      const source = sources.find((item) => item.token === target.toLowerCase() || item.name === target || String(item.id) === target);
      if (!source) throw new CliError(`no source "${target}"`);
      if (values.yes !== true) {
        if (!process.stdin.isTTY) throw new CliError(`deleting ${source.name} removes its ${source.events} events: pass --yes`);
        if (!(await confirm(`Delete source ${source.name} and its ${source.events} events?`))) throw new CliError('not deleted');
      }
      await client.request('DELETE', `/api/sources/${source.token}`);
      return out(json ? JSON.stringify({ deleted: source.token }) : `deleted source ${source.name} (${source.token})`);
    }
    case 'retention': {
      const setting = positionals[2];
      if (!target) throw usage('sawmill sources retention <name|token> [DAYS|forever]');
      const days = setting === undefined ? undefined : parseRetention(setting);
      const sources = await client.request<SourceStats[]>('GET', '/api/explorer/sources');
      const source = sources.find((item) => item.token === target.toLowerCase() || item.name === target || String(item.id) === target);
      if (!source) throw new CliError(`no source "${target}"`);
      if (days !== undefined) await client.request('PATCH', `/api/sources/${source.token}`, { retention_days: days });
      const kept = days === undefined ? source.retention_days : days;
      return out(json ? JSON.stringify({ name: source.name, retention_days: kept }) : `${source.name} keeps events ${retentionText(kept)}`);
    }
    default:
      throw usage('sawmill sources list|create|delete|retention');
  }
}

/**
 * Scopes as the API takes them, with sources and endpoints also named by name or token
 * (`ingest:source:app.logs`): the API's scopes carry numeric ids, which nobody has at hand.
 */
async function resolveScopes(client: ApiClient, scopes: string[]): Promise<string[]> {
  let sources: Array<{ id: number; name: string; token: string }> | undefined;
  let endpoints: Array<{ id: number; name: string; token: string }> | undefined;
  const resolved: string[] = [];
  for (const scope of scopes) {
    const match = /^(ingest:source|query:endpoint):(.+)$/.exec(scope);
    if (!match || /^\d+$/.test(match[2]!)) {
      resolved.push(scope);
      continue;
    }
    const [, kind, wanted] = match as unknown as [string, string, string];
    type Named = Array<{ id: number; name: string; token: string }>;
    const list = kind === 'ingest:source' ? (sources ??= await client.request<Named>('GET', '/api/sources')) : (endpoints ??= await client.request<Named>('GET', '/api/endpoints'));
    const found = list.find((item) => item.name === wanted || item.token === wanted.toLowerCase());
    if (!found) throw new CliError(`${scope}: no ${kind === 'ingest:source' ? 'source' : 'endpoint'} named "${wanted}"`);
    resolved.push(`${kind}:${found.id}`);
  }
  return resolved;
}

const KEYS_USAGE = 'sawmill keys list | keys create --scope SCOPE [--scope ...] [--description TEXT] | keys revoke <id>';

/** The id of the access token holding `key`, asked with the key in the body: a URL is logged by proxies. */
async function keyId(client: ApiClient, key: string): Promise<string> {
  const token = await client.request<{ id: number }>('POST', '/api/access-tokens/lookup', { token: key }).catch((error: unknown) => {
    throw error instanceof CliError && /^404:/.test(error.message) ? new CliError(`${error.message.replace(/^404: /, '')} (see sawmill keys list)`) : error;
  });
  return String(token.id);
}

export async function keysCommand({ client, positionals, values, json, out }: CommandContext): Promise<void> {
  const [action, target] = positionals;
  if (action === 'list' || action === undefined) {
    const tokens = await client.request<Array<Record<string, unknown>>>('GET', '/api/access-tokens');
    return out(json ? JSON.stringify(tokens, null, 2) : table(tokens, ['id', 'scopes', 'description', 'inserted_at']));
  }
  if (action === 'revoke') {
    if (!target) throw usage('sawmill keys revoke <id> (the id keys list shows, or the key itself)');
    const id = /^\d+$/.test(target) ? target : await keyId(client, target);
    await client.request('DELETE', `/api/access-tokens/${id}`).catch((error: unknown) => {
      throw error instanceof CliError && /^404:/.test(error.message) ? new CliError(`no key ${id} (see sawmill keys list)`) : error;
    });
    return out(json ? JSON.stringify({ revoked: id }) : `revoked key ${id}; it no longer works`);
  }
  if (action !== 'create') throw usage(KEYS_USAGE);
  const scopes = await resolveScopes(client, (values.scope as string[] | undefined) ?? []);
  if (scopes.length === 0) throw usage('sawmill keys create --scope private|ingest|ingest:source:<name>|query|query:endpoint:<name> [--scope ...]');
  const body = { scopes, ...(typeof values.description === 'string' ? { description: values.description } : {}) };
  const created = await client.request<{ id: number; token: string; scopes: string }>('POST', '/api/access-tokens', body);
  if (json) return out(JSON.stringify(created, null, 2));
  out(created.token);
  process.stderr.write(`key ${created.id} (${created.scopes}) created; it is shown only this once\n`);
}

export async function queryCommand({ client, positionals, values, json, out }: CommandContext): Promise<void> {
  const [endpoint] = positionals;
  if (!endpoint) throw usage('sawmill query <endpoint> [--param name=value ...] [--json]');
  const search = new URLSearchParams();
  for (const pair of (values.param as string[] | undefined) ?? []) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw usage(`--param takes name=value, got "${pair}"`);
    search.append(pair.slice(0, equals), pair.slice(equals + 1));
  }
  const query = search.size > 0 ? `?${search}` : '';
  const { body, headers } = await client.reply<{ result: Array<Record<string, unknown>> }>('GET', `/api/endpoints/query/${path(endpoint)}${query}`);
  const { result } = body;
  // The API, as Logflare's, runs a missing parameter as NULL and ignores an unknown one: say so.
  const note = parameterNote(headers);
  if (note) process.stderr.write(`${note}\n`);
  if (json) return out(JSON.stringify(result, null, 2));
  // TIMESTAMP values come back as microseconds since the epoch; a person reads ISO 8601.
  const times = timestampColumns(result);
  out(table(result.map((row) => (times.length === 0 ? row : { ...row, ...Object.fromEntries(times.map((name) => [name, isoFromMicros(row[name])])) }))));
  process.stderr.write(`${result.length} row${result.length === 1 ? '' : 's'}\n`);
}

/** What the service's parameter headers say (routes/endpoints.ts), as a line for people; '' when all is well. */
export function parameterNote(headers: Headers): string {
  const names = (header: string) => (headers.get(header) ?? '').split(', ').filter(Boolean).map(decodeURIComponent);
  const missing = names('x-sawmill-missing-params');
  const unknown = names('x-sawmill-unknown-params');
  const parts = [
    ...(missing.length > 0 ? [`no value for ${missing.map((name) => `@${name}`).join(', ')}, so NULL (--param ${missing[0]}=…)`] : []),
    ...(unknown.length > 0 ? [`the query does not use ${unknown.join(', ')}: ignored`] : []),
  ];
  return parts.length > 0 ? `note: ${parts.join('; ')}` : '';
}

export async function tailCommand({ client, positionals, values, json, out, err }: CommandContext): Promise<void> {
  const [source] = positionals;
  if (!source) throw usage('sawmill tail <source> [--filter LQL] [--json]');
  const filter = typeof values.filter === 'string' ? values.filter : '';
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const response = await client.stream(`/api/sources/${path(source)}/tail?q=${encodeURIComponent(filter)}`, controller.signal);
    for await (const message of serverSentEvents(response.body!)) {
      if (message.event === 'ready') {
        const { name } = JSON.parse(message.data) as { name: string };
        err(`tailing ${name}${filter ? ` where ${filter}` : ''} (Ctrl-C stops)`);
      } else if (message.event === 'dropped') {
        const { events, reason } = JSON.parse(message.data) as { events: number; reason?: string };
        err(`… ${events} events skipped (${reason === 'regex_budget' ? 'not tested against the regex: see docs/security.md' : 'output too slow'})`);
      } else if (message.event === 'events') {
        for (const event of JSON.parse(message.data) as Array<Record<string, unknown>>) {
          out(json ? JSON.stringify(event) : `${isoFromMicros(event.timestamp)}  ${String(event.event_message ?? '')}`);
        }
      }
    }
    if (!controller.signal.aborted) err('the service closed the stream');
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

interface EndpointRecord {
  id: number;
  token: string;
  name: string;
  description: string | null;
  query: string;
  language: string;
  sandboxable: boolean;
  cache_duration_seconds: number;
  proactive_requerying_seconds: number;
  max_limit: number;
  enable_auth: boolean;
}

const ENDPOINTS_USAGE =
  'sawmill endpoints list | show <name|token> | create <name> (--query TEXT | --query-file FILE) [--language bq_sql|ch_sql|lql] ' +
  '[--description TEXT] [--cache SECONDS] [--max-rows N] [--sandboxable] | update <name|token> [same options] | delete <name|token>';

async function findEndpoint(client: ApiClient, target: string): Promise<EndpointRecord> {
  const endpoints = await client.request<EndpointRecord[]>('GET', '/api/endpoints');
  const found = endpoints.find((item) => item.name === target || item.token === target.toLowerCase() || String(item.id) === target);
  if (!found) throw new CliError(`no endpoint "${target}" (see sawmill endpoints list)`);
  return found;
}

function wholeNumber(option: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw usage(`--${option} takes a whole number of at least ${min}, got "${text}"`);
  return value;
}

/** The fields `create` and `update` set from their options; the service checks the query in its language. */
function endpointChanges(values: CommandContext['values']): Partial<EndpointRecord> {
  if (typeof values.query === 'string' && typeof values['query-file'] === 'string') throw usage('give --query or --query-file, not both');
  const file = values['query-file'];
  const query = typeof file === 'string' ? readQueryFile(file) : values.query;
  return {
    ...(typeof query === 'string' ? { query } : {}),
    ...(typeof values.language === 'string' ? { language: values.language } : {}),
    ...(typeof values.description === 'string' ? { description: values.description } : {}),
    ...(typeof values.cache === 'string' ? { cache_duration_seconds: wholeNumber('cache', values.cache, 0) } : {}),
    ...(typeof values['max-rows'] === 'string' ? { max_limit: wholeNumber('max-rows', values['max-rows'], 1) } : {}),
    ...(values.sandboxable === true ? { sandboxable: true } : {}),
  };
}

/** A query from a file, or from stdin for `-`. */
function readQueryFile(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file === '-' ? 'stdin' : file}: ${(error as Error).message}`);
  }
}

function endpointText(endpoint: EndpointRecord): string {
  const settings = [
    ['name', endpoint.name],
    ['token', endpoint.token],
    ['language', endpoint.language],
    ['description', endpoint.description ?? ''],
    ['cache', endpoint.cache_duration_seconds ? `${endpoint.cache_duration_seconds}s` : 'off'],
    ['max rows', String(endpoint.max_limit)],
    ['sandboxable', endpoint.sandboxable ? 'yes' : 'no'],
    ['auth', endpoint.enable_auth ? 'key' : 'public'],
  ];
  return `${settings.map(([name, value]) => `${`${name}:`.padEnd(13)}${value}`).join('\n')}\n\n${endpoint.query}`;
}

export async function endpointsCommand({ client, positionals, values, json, out }: CommandContext): Promise<void> {
  const [action, target] = positionals;
  switch (action) {
    case 'list':
    case undefined: {
      const endpoints = await client.request<EndpointRecord[]>('GET', '/api/endpoints');
      if (json) return out(JSON.stringify(endpoints, null, 2));
      const rows = endpoints.map((endpoint) => ({
        id: endpoint.id,
        name: endpoint.name,
        language: endpoint.language,
        cache: endpoint.cache_duration_seconds ? `${endpoint.cache_duration_seconds}s` : 'off',
        'max rows': endpoint.max_limit,
        token: endpoint.token,
      }));
      return out(table(rows, ['id', 'name', 'language', 'cache', 'max rows', 'token']));
    }
    case 'show': {
      if (!target) throw usage('sawmill endpoints show <name|token>');
      const endpoint = await findEndpoint(client, target);
      return out(json ? JSON.stringify(endpoint, null, 2) : endpointText(endpoint));
    }
    case 'create': {
      if (!target) throw usage(ENDPOINTS_USAGE);
      const changes = endpointChanges(values);
      if (changes.query === undefined) throw usage('sawmill endpoints create <name> needs --query TEXT or --query-file FILE (- for stdin)');
      const created = await client.request<EndpointRecord>('POST', '/api/endpoints', { name: target, ...changes });
      return out(json ? JSON.stringify(created, null, 2) : `created endpoint ${created.name} (${created.language}): ${created.token}`);
    }
    case 'update': {
      if (!target) throw usage(ENDPOINTS_USAGE);
      const endpoint = await findEndpoint(client, target);
      const changes = endpointChanges(values);
      if (Object.keys(changes).length === 0) throw usage('sawmill endpoints update <name|token> with at least one of --query, --query-file, --language, --description, --cache, --max-rows, --sandboxable');
      const updated = await client.request<EndpointRecord>('PUT', `/api/endpoints/${endpoint.token}`, { name: endpoint.name, query: endpoint.query, ...changes });
      return out(json ? JSON.stringify(updated, null, 2) : `updated endpoint ${updated.name} (${updated.language})`);
    }
    case 'delete': {
      if (!target) throw usage('sawmill endpoints delete <name|token>');
      const endpoint = await findEndpoint(client, target);
      await client.request('DELETE', `/api/endpoints/${endpoint.token}`);
      return out(json ? JSON.stringify({ deleted: endpoint.token }) : `deleted endpoint ${endpoint.name} (${endpoint.token})`);
    }
    default:
      throw usage(ENDPOINTS_USAGE);
  }
}
