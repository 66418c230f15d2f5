import { loadConfig, type Config } from './config.ts';
import { SAWMILL_VERSION } from './data-format.ts';
import { ignoredLogflareSettingsMessage } from './logflare-env.ts';
import { unsupportedNodeMessage } from './node-support.ts';
import { startServer, type RunningServer } from './server.ts';
import { startupMessage } from './startup.ts';

// Everything the service writes (the DuckDB file and its log, the journal, staging, catalog, key)
// is for this user alone, whatever umask it was started with: a backup copies the files' modes.
process.umask(0o077);

let config: Config | undefined;
let server: RunningServer;
try {
  config = loadConfig();
  server = await startServer(config);
} catch (error) {
  // One line a person can act on, not a stack trace; SAWMILL_LOG_LEVEL=debug adds the trace.
  console.error(`sawmill: ${startupMessage(error, { dataDir: config?.dataDir ?? '', host: config?.host ?? '', port: config?.port ?? 0 })}`);
  if (process.env.SAWMILL_LOG_LEVEL === 'debug') console.error(error);
  process.exit(1);
}
server.app.log.info(`Sawmill ${SAWMILL_VERSION} listening on ${server.url}`);
const unsupportedNode = unsupportedNodeMessage();
if (unsupportedNode) server.app.log.warn(unsupportedNode);
const ignoredLogflare = ignoredLogflareSettingsMessage(process.env);
if (ignoredLogflare) server.app.log.info(ignoredLogflare);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.app.log.info(`${signal}: draining`);
    server.close().then(
      () => {
        server.app.log.info('Sawmill stopped');
        process.exit(0);
      },
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
