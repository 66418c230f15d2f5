import { loadConfig, logSettings, type Config } from './config.ts';
import { ignoredLogflareSettingsMessage } from './logflare-env.ts';
import { createLogger, type Logger } from './log.ts';
import { unsupportedNodeMessage } from './node-support.ts';
import { startServer, type RunningServer } from './server.ts';
import { startupMessage } from './startup.ts';

// Everything the service writes (the DuckDB file and its log, the journal, staging, catalog, key)
// is for this user alone, whatever umask it was started with: a backup copies the files' modes.
process.umask(0o077);

let log: Logger | undefined;
let config: Config | undefined;
let server: RunningServer;
try {
  const { logLevel, logFormat } = logSettings(process.env);
  log = createLogger({ level: logLevel, format: logFormat });
  const unsupportedNode = unsupportedNodeMessage();
  if (unsupportedNode) log.warn(unsupportedNode);
  config = loadConfig();
  const ignoredLogflare = ignoredLogflareSettingsMessage(process.env);
  if (ignoredLogflare) log.info(ignoredLogflare);
  server = await startServer(config, log);
} catch (error) {
  // One line a person can act on, not a stack trace; SAWMILL_LOG_LEVEL=debug adds the trace.
  const message = startupMessage(error, { dataDir: config?.dataDir ?? '', host: config?.host ?? '', port: config?.port ?? 0 });
  // Without a log (its own settings are wrong), a plain line: there is no format to keep.
  if (log) log.fatal(log.isLevelEnabled('debug') ? { err: error } : {}, message);
  else console.error(`sawmill: ${message}`);
  process.exit(1);
}

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
