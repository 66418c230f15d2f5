import { resolve } from 'node:path';
import { restoreDataDir, type BackupManifest } from '../backup.ts';
import { CliError } from './client.ts';
import type { CommandContext } from './main.ts';

export async function backupCommand({ client, positionals, json, out }: CommandContext): Promise<void> {
  const [target] = positionals;
  if (!target) throw new CliError('usage: sawmill backup <dir>', 2);
  // The service writes the files, so the path is resolved here, where the user typed it.
  const dir = resolve(target);
  const manifest = await client.request<BackupManifest & { dir: string }>('POST', '/api/backup', { dir });
  out(json ? JSON.stringify(manifest, null, 2) : `backup written to ${manifest.dir}: ${manifest.files.join(', ')}`);
}

export async function restoreCommand(positionals: string[], values: CommandContext['values'], out: (text: string) => void): Promise<void> {
  const [source] = positionals;
  if (!source) throw new CliError('usage: sawmill restore <dir> [--data-dir DIR]', 2);
  const dataDir = resolve(typeof values['data-dir'] === 'string' ? values['data-dir'] : process.env.SAWMILL_DATA_DIR || './data');
  let manifest: BackupManifest;
  try {
    manifest = await restoreDataDir(resolve(source), dataDir);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  if (values.json === true) return out(JSON.stringify({ dataDir, ...manifest }, null, 2));
  out(`restored the backup of ${manifest.created_at} (Sawmill ${manifest.sawmill}) into ${dataDir}; start the service with SAWMILL_DATA_DIR=${dataDir}`);
}
