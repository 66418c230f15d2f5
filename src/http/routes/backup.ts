import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { backupDataDir } from '../../backup.ts';
import { FileCatalog } from '../../catalog/file-catalog.ts';
import type { Services } from '../services.ts';
import { requireManager } from './sources.ts';

const backupInput = z.object({ dir: z.string().min(1, 'must not be empty').max(4096) });

/** `sawmill backup <dir>`: the service copies its own data dir, as it runs, to `dir` on its machine. */
export default async function backupRoutes(app: FastifyInstance, { services }: { services: Services }) {
  app.post('/api/backup', async (request) => {
    requireManager(services, request);
    const { dir } = backupInput.parse(request.body ?? {});
    const manifest = await backupDataDir(dir, {
      dataDir: services.dataDir,
      warehouse: services.warehouse,
      writer: services.writer,
      fileCatalog: services.catalog instanceof FileCatalog,
    });
    return { dir, ...manifest };
  });
}
