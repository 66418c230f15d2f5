import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { DATA_FORMAT, MARKER_FILE, SAWMILL_VERSION, type DataFormat } from './data-format.ts';
import { AppError } from './errors.ts';
import type { EventWriter } from './pipeline/writer.ts';
import type { Warehouse } from './warehouse/types.ts';

export const MANIFEST_FILE = 'sawmill-backup.json';

export interface BackupManifest {
  sawmill: string;
  format: DataFormat;
  created_at: string;
  /** Files of the data dir in the backup, the manifest aside. */
  files: string[];
}

/** Kept beside the events: the catalog, the key a generated-key install signs in with, the format marker. */
const DATA_DIR_FILES = ['catalog.json', 'private-key', MARKER_FILE];

/**
 * A copy of a running instance's data dir in `dir` (on the server's machine) that holds every
 * event acknowledged before the call: those are folded in first, then the warehouse file is
 * copied while folds wait (ingestion goes on into the journal), then the catalog, the key and
 * the format marker. The manifest is written last, so a backup without one is incomplete.
 */
export async function backupDataDir(dir: string, parts: { dataDir: string; warehouse: Warehouse; writer: EventWriter; fileCatalog: boolean }): Promise<BackupManifest> {
  const { dataDir, warehouse, writer } = parts;
  if (!warehouse.backup || !parts.fileCatalog) {
    throw new AppError(409, 'backup_unsupported', 'backup copies the data dir of the embedded DuckDB warehouse and catalog.json; with ClickHouse or a PostgreSQL catalog, use their own backups (BACKUP, pg_dump)');
  }
  await prepareEmptyDir(dir, dataDir);
  await writer.visible();
  const files = await warehouse.backup(dir);
  for (const name of DATA_DIR_FILES) {
    if (!existsSync(join(dataDir, name))) continue;
    await copyFile(join(dataDir, name), join(dir, name));
    files.push(name);
  }
  if (files.includes('private-key')) await chmod(join(dir, 'private-key'), 0o600);
  for (const name of files) await syncFile(join(dir, name));
  const manifest: BackupManifest = { sawmill: SAWMILL_VERSION, format: { ...DATA_FORMAT }, created_at: new Date().toISOString(), files };
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flush: true });
  await syncFile(dir);
  return manifest;
}

/** Copies a backup into a data dir no Sawmill uses yet; the service then starts on it as usual. */
export async function restoreDataDir(backupDir: string, dataDir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(backupDir, MANIFEST_FILE), 'utf8')) as BackupManifest;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${backupDir} is not a complete Sawmill backup (no ${MANIFEST_FILE})` : `cannot read ${join(backupDir, MANIFEST_FILE)}: ${(error as Error).message}`);
  }
  if (manifest.format.format > DATA_FORMAT.format) {
    throw new Error(`the backup in ${backupDir} was made by Sawmill ${manifest.sawmill} (format ${manifest.format.format}); this Sawmill ${SAWMILL_VERSION} reads format ${DATA_FORMAT.format} and older`);
  }
  const present = existsSync(dataDir) ? (await readdir(dataDir)).filter((name) => !name.startsWith('.')) : [];
  if (present.length > 0) {
    throw new Error(`data dir ${dataDir} is not empty (${present.slice(0, 4).join(', ')}${present.length > 4 ? ', …' : ''}): restore into a new data dir, or move this one aside first`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (const name of manifest.files) {
    await copyFile(join(backupDir, name), join(dataDir, name));
    await syncFile(join(dataDir, name));
  }
  if (manifest.files.includes('private-key')) await chmod(join(dataDir, 'private-key'), 0o600);
  await syncFile(dataDir);
  return manifest;
}

async function prepareEmptyDir(dir: string, dataDir: string): Promise<void> {
  if (!isAbsolute(dir)) throw new AppError(400, 'bad_request', `backup dir must be an absolute path on the server, got "${dir}"`);
  const inside = relative(dataDir, dir);
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) throw new AppError(400, 'bad_request', `backup dir ${dir} is inside the data dir ${dataDir}: choose a place outside it`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const present = await readdir(dir);
    if (present.length > 0) throw new AppError(409, 'backup_dir_not_empty', `backup dir ${dir} is not empty: choose a new or empty one`);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(400, 'bad_request', `cannot write the backup to ${dir}: ${(error as Error).message}`);
  }
}

/** Files copied into a backup reach the disk before the backup is reported done. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
