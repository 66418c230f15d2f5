import { loadConfig } from './config.ts';
import { startServer } from './server.ts';

const server = await startServer(loadConfig());
server.app.log.info(`Sawmill listening on ${server.url}`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.app.log.info(`${signal}: draining`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
