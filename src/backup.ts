import { existsSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, open, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { DATA_FORMAT, MARKER_FILE, SAWMILL_VERSION, type DataFormat } from './data-format.ts';
import { AppError } from './errors.ts';
import { ENVIRONMENT_KEYS_FILE } from './keys-in-force.ts';
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

/**
 * Kept beside the events: the keys the environment set before (by hash), the catalog, the key a
 * generated-key install signs in with, the format marker.
 */
const DATA_DIR_FILES = [ENVIRONMENT_KEYS_FILE, 'catalog.json', 'private-key', MARKER_FILE];

/**
 * Every name a backup's manifest may list: DuckDB's file and its write-ahead log (what
 * Warehouse.backup copies, src/warehouse/duckdb/open.ts names them) and DATA_DIR_FILES. A restore
 * refuses any other name, so a manifest cannot make it read or write outside its two dirs.
 */
const BACKUP_FILES: ReadonlySet<string> = new Set(['sawmill.duckdb', 'sawmill.duckdb.wal', ...DATA_DIR_FILES]);

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
  // Copies keep their source's mode; a backup holds the keys and every event, for its owner alone.
  for (const name of files) {
    await chmod(join(dir, name), 0o600);
    await syncFile(join(dir, name));
  }
  const manifest: BackupManifest = { sawmill: SAWMILL_VERSION, format: { ...DATA_FORMAT }, created_at: new Date().toISOString(), files };
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flush: true });
  await syncFile(dir);
  return manifest;
}

/** Copies a backup into a data dir no Sawmill uses yet; the service then starts on it as usual. */
export async function restoreDataDir(backupDir: string, dataDir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = checkedManifest(JSON.parse(await readFile(join(backupDir, MANIFEST_FILE), 'utf8')), backupDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined && !(error instanceof SyntaxError)) throw error;
    throw new Error(code === 'ENOENT' ? `${backupDir} is not a complete Sawmill backup (no ${MANIFEST_FILE})` : `cannot read ${join(backupDir, MANIFEST_FILE)}: ${(error as Error).message}`);
  }
  if (manifest.format.format > DATA_FORMAT.format) {
    throw new Error(`the backup in ${backupDir} was made by Sawmill ${manifest.sawmill} (format ${manifest.format.format}); this Sawmill ${SAWMILL_VERSION} reads format ${DATA_FORMAT.format} and older`);
  }
  // Every file is checked before anything is written: a refused backup leaves no trace.
  for (const name of manifest.files) {
    const stats = await lstat(join(backupDir, name)).catch(() => undefined);
    if (!stats?.isFile()) throw new Error(`${join(backupDir, name)}, listed in the backup's manifest, is ${stats ? 'not a regular file' : 'missing'}: the backup is incomplete or was altered`);
  }
  const present = existsSync(dataDir) ? (await readdir(dataDir)).filter((name) => !name.startsWith('.')) : [];
  if (present.length > 0) {
    throw new Error(`data dir ${dataDir} is not empty (${present.slice(0, 4).join(', ')}${present.length > 4 ? ', …' : ''}): restore into a new data dir, or move this one aside first`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (const name of manifest.files) {
    await copyFile(join(backupDir, name), join(dataDir, name));
    await chmod(join(dataDir, name), 0o600);
    await syncFile(join(dataDir, name));
  }
  await syncFile(dataDir);
  return manifest;
}

/** The manifest, if it lists only files a backup holds, each once; otherwise why not. */
function checkedManifest(parsed: unknown, backupDir: string): BackupManifest {
  const manifest = parsed as Partial<BackupManifest> | null;
  const refuse = (why: string) => new Error(`the manifest of ${backupDir} ${why}: the backup was not made by Sawmill or was altered`);
  if (typeof manifest?.format?.format !== 'number' || !Array.isArray(manifest.files)) throw refuse('lacks its format or its list of files');
  const seen = new Set<string>();
  for (const name of manifest.files as unknown[]) {
    if (typeof name !== 'string' || !BACKUP_FILES.has(name)) throw refuse(`lists ${JSON.stringify(name).slice(0, 200)}, which is not a file a backup holds (${[...BACKUP_FILES].join(', ')})`);
    if (seen.has(name)) throw refuse(`lists ${name} twice`);
    seen.add(name);
  }
  return manifest as BackupManifest;
}

async function prepareEmptyDir(dir: string, dataDir: string): Promise<void> {
  if (!isAbsolute(dir)) throw new AppError(400, 'bad_request', `backup dir must be an absolute path on the server, got "${dir}"`);
  const insideDataDir = async () => isWithin(await realpath(dataDir), await resolvedPath(dir));
  if (await insideDataDir()) throw new AppError(400, 'bad_request', `backup dir ${dir} is inside the data dir ${dataDir}: choose a place outside it`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Made now, it could be a link made meanwhile: look again at what was made.
    if (await insideDataDir()) throw new AppError(400, 'bad_request', `backup dir ${dir} is inside the data dir ${dataDir}: choose a place outside it`);
    const present = await readdir(dir);
    if (present.length > 0) throw new AppError(409, 'backup_dir_not_empty', `backup dir ${dir} is not empty: choose a new or empty one`);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(400, 'bad_request', `cannot write the backup to ${dir}: ${(error as Error).message}`);
  }
}

/** Whether `path` is `dir` or below it (`dir/..bk` is below; `dir/../x` is not). */
function isWithin(dir: string, path: string): boolean {
  const inside = relative(dir, path);
  return inside === '' || !(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside));
}

/** `path` with every symbolic link resolved, for the part of it that exists. */
async function resolvedPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const parent = dirname(path);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw error;
    return join(await resolvedPath(parent), basename(path));
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
