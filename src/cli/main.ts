import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SAWMILL_VERSION } from '../data-format.ts';
import { ApiClient, CliError, connection } from './client.ts';
import { ingestCommand } from './ingest.ts';
import { backupCommand, restoreCommand } from './operations.ts';
import { endpointsCommand, keysCommand, queryCommand, sourcesCommand, tailCommand } from './commands.ts';

export const USAGE = `Usage: sawmill <command> [options]

Commands
  serve [--port N] [--host H] [--data-dir DIR]   run the service (same as npm start)
  sources list                                    sources with event counts, ingest rate, last event
  sources create <name> [--description TEXT] [--retention DAYS|forever]
                                                  create a source; prints its token
  sources retention <name|token> [DAYS|forever]  show or set how long a source keeps events
  sources delete <name|token> [--yes]             delete a source and all its events
  keys list                                       access tokens (their keys are never shown again)
  keys create --scope SCOPE [--scope ...] [--description TEXT]
                                                  create a key: private, ingest, ingest:source:<name>,
                                                  query, query:endpoint:<name> (or their ids),
                                                  metrics; prints the key once
  keys revoke <id>                                revoke a key (its id from keys list, or the key)
  endpoints list                                  endpoints with their language, cache, max rows, token
  endpoints show <name|token>                     an endpoint's settings and query
  endpoints create <name> (--query TEXT | --query-file FILE|-) [--language L]
         [--description TEXT] [--cache SECONDS] [--max-rows N] [--sandboxable]
                                                  save a query; L is bq_sql (BigQuery SQL, the
                                                  default), ch_sql (ClickHouse SQL) or lql (LQL
                                                  with f:<source>); refusals say where
  endpoints update <name|token> [the same options]  change an endpoint
  endpoints delete <name|token>                   delete an endpoint
  query <endpoint> [--param k=v ...] [--json]     run an endpoint (name or token), print rows
                                                  (TIMESTAMP columns as ISO 8601; --json: as returned)
  tail <source> [--filter LQL] [--json]           stream new events as they are committed
  ingest <source> [--batch N]                     send NDJSON from stdin, one event per line; exits 1
                                                  unless every line was stored
  backup <dir>                                    the running service copies its data dir to <dir>
                                                  (a new or empty directory on the server's machine)
  restore <dir> [--data-dir DIR]                  copy a backup into a new data dir (default
                                                  SAWMILL_DATA_DIR or ./data); then start the service
  migrate-to-clickhouse [--data-dir DIR] [--source NAME ...]
                                                  copy a stopped DuckDB data dir's events into
                                                  ClickHouse (SAWMILL_CLICKHOUSE_*); docs/scale-out.md

Options
  --url URL      service address (env SAWMILL_URL, default http://127.0.0.1:4000)
  --key KEY      API key (env SAWMILL_API_KEY or LOGFLARE_PRIVATE_ACCESS_TOKEN, else
                 ./data/private-key when present)
  --json         machine-readable output
  -h, --help     this help
  --version      the version of this sawmill

Filters (LQL): words search event_message; field:value, m.path.to.field:>=500,
  m.request.path:~"^/rest" (regex), m.ms:100..250 (range), m.user:NULL, -clause negates.
`;

type Options = NonNullable<ParseArgsConfig['options']>;

const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies Options;

export interface CommandContext {
  client: ApiClient;
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

function parse(args: string[], options: Options) {
  try {
    return parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
}

const COMMAND_OPTIONS: Record<string, Options> = {
  backup: {},
  restore: { 'data-dir': { type: 'string' } },
  'migrate-to-clickhouse': { 'data-dir': { type: 'string' }, source: { type: 'string', multiple: true } },
  serve: { port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' } },
  sources: { description: { type: 'string' }, retention: { type: 'string' }, yes: { type: 'boolean', short: 'y', default: false } },
  keys: { scope: { type: 'string', multiple: true }, description: { type: 'string' } },
  query: { param: { type: 'string', short: 'p', multiple: true } },
  endpoints: {
    query: { type: 'string' },
    'query-file': { type: 'string' },
    language: { type: 'string' },
    description: { type: 'string' },
    cache: { type: 'string' },
    'max-rows': { type: 'string' },
    sandboxable: { type: 'boolean', default: false },
  },
  tail: { filter: { type: 'string', short: 'f' } },
  ingest: { batch: { type: 'string' } },
};

async function serve(values: CommandContext['values']): Promise<void> {
  // The service reads its configuration from the environment; flags are a shorthand for it.
  if (typeof values.port === 'string') process.env.PORT = values.port;
  if (typeof values.host === 'string') process.env.HOST = values.host;
  if (typeof values['data-dir'] === 'string') process.env.SAWMILL_DATA_DIR = values['data-dir'];
  await import('../main.ts');
}

export async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command === '--version' || command === '-V' || command === 'version') {
    process.stdout.write(`sawmill ${SAWMILL_VERSION}\n`);
    return;
  }
  const options = COMMAND_OPTIONS[command];
  if (!options) throw new CliError(`unknown command "${command}"\n\n${USAGE}`, 2);
  const { values, positionals } = parse(rest, options);
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (command === 'serve') return serve(values);
  // Restoring writes a data dir no service runs on yet: nothing to connect to.
  if (command === 'restore') return restoreCommand(positionals, values, (text) => void process.stdout.write(`${text}\n`));
  // Reads a stopped data dir and writes to ClickHouse: no service to connect to either.
  if (command === 'migrate-to-clickhouse') {
    const { migrateCommand } = await import('./migrate.ts');
    return migrateCommand({ values, out: (text) => void process.stdout.write(`${text}\n`), err: (text) => void process.stderr.write(`${text}\n`) });
  }

  const context: CommandContext = {
    client: new ApiClient(connection({ url: values.url as string | undefined, key: values.key as string | undefined })),
    positionals,
    values,
    json: values.json === true,
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
  };
  switch (command) {
    case 'sources':
      return sourcesCommand(context);
    case 'keys':
      return keysCommand(context);
    case 'query':
      return queryCommand(context);
    case 'endpoints':
      return endpointsCommand(context);
    case 'tail':
      return tailCommand(context);
    case 'backup':
      return backupCommand(context);
    case 'ingest':
      return ingestCommand(context);
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`sawmill: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    throw error;
  }
}
