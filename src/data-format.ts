import { existsSync, readFileSync } from 'node:fs';
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { StartupError } from './startup.ts';

/**
 * The data dir says which layout it holds, so a newer Sawmill can migrate it and an older one
 * can refuse it instead of misreading it. One marker file for the dir, recording the format of
 * the parts that have one of their own: the journal's record framing and catalog.json (which also
 * carries its `version`). Bump a number when what is on disk changes, and add the migration.
 */
export const DATA_FORMAT = { format: 4, journal: 2, catalog: 1 } as const;
export type DataFormat = { -readonly [K in keyof typeof DATA_FORMAT]: number };

export const MARKER_FILE = 'sawmill-format.json';

/** This Sawmill's version, from package.json (one level above src/ and build/ alike). */
export const SAWMILL_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Marker extends DataFormat {
  /** The Sawmill version that last wrote the marker, for the message an older one prints. */
  written_by: string;
}

/**
 * Steps from one format to the next, by the format they start from. 0 is a data dir made before
 * the marker existed (Sawmill 0.1.0 without it): its files are format 1's, so the step only
 * checks that and lets the marker be written.
 */
const MIGRATIONS: Record<number, (dataDir: string) => Promise<void>> = {
  0: async (dataDir) => {
    const catalog = join(dataDir, 'catalog.json');
    if (!existsSync(catalog)) return;
    const { version } = JSON.parse(await readFile(catalog, 'utf8')) as { version?: unknown };
    if (version !== 1) throw new StartupError(`${catalog} has version ${String(version)}, which no Sawmill wrote without a ${MARKER_FILE}: restore it from a backup`);
  },
  // Format 2 stores nothing differently: it marks the data dirs that have the logs.all.otel and
  // logs endpoints, which the start after the upgrade adds (src/provision/supabase.ts).
  1: async () => undefined,
  // Format 3 neither: it marks the data dirs whose logs.all and usage.api-counts are provisioned
  // sandboxable, which the start after the upgrade makes them unless a user changed them.
  2: async () => undefined,
  // Format 4 neither: it marks the data dirs whose functions.combined-stats answers CPU time and
  // memory, which the start after the upgrade gives it unless a user changed it.
  3: async () => undefined,
};
// Journal 2 (with any format): a staged record's header may carry the request's events that were
// not staged (`rows`). Journal 1 records read the same, so there is nothing to migrate; a Sawmill
// that reads only journal 1 would drop those rows, so it refuses the dir instead.


/** The parts of a data dir that exist only once something was stored in it. */
const CONTENT = ['catalog.json', 'sawmill.duckdb', 'journal', 'private-key'];

/**
 * Reads (and, for an older dir, migrates) the data dir's format before anything else opens it;
 * refuses a dir written by a newer Sawmill. Returns the format the dir was found in (0: before markers).
 */
export async function openDataDir(dataDir: string, log: (message: string) => void = () => undefined): Promise<number> {
  const found = await readMarker(dataDir);
  if (found === undefined) {
    const fresh = !CONTENT.some((name) => existsSync(join(dataDir, name)));
    if (!fresh) await migrate(dataDir, 0, log);
    await writeMarker(dataDir);
    return fresh ? DATA_FORMAT.format : 0;
  }
  const newer = (Object.keys(DATA_FORMAT) as Array<keyof DataFormat>).filter((part) => (found[part] ?? 0) > DATA_FORMAT[part]);
  if (newer.length > 0) {
    const parts = newer.map((part) => `${part} ${found[part]}`).join(', ');
    throw new StartupError(
      `data dir ${dataDir} was written by Sawmill ${found.written_by} (${parts}); this Sawmill ${SAWMILL_VERSION} reads format ${DATA_FORMAT.format}, journal ${DATA_FORMAT.journal}, catalog ${DATA_FORMAT.catalog} and older: run that version or newer, or restore a backup taken before the upgrade`,
    );
  }
  if (found.format < DATA_FORMAT.format || found.journal < DATA_FORMAT.journal || found.catalog < DATA_FORMAT.catalog) {
    await migrate(dataDir, found.format, log);
    await writeMarker(dataDir);
  }
  return found.format;
}

export async function readMarker(dataDir: string): Promise<Marker | undefined> {
  const path = join(dataDir, MARKER_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const marker = JSON.parse(text) as Partial<Marker>;
    if (typeof marker.format !== 'number') throw new Error('no format number');
    return { format: marker.format, journal: marker.journal ?? 0, catalog: marker.catalog ?? 0, written_by: String(marker.written_by ?? 'unknown') };
  } catch (error) {
    throw new StartupError(`${path} is not a Sawmill format marker (${(error as Error).message}): restore it from a backup, or remove it if the data dir was made by Sawmill 0.1.0`);
  }
}

async function migrate(dataDir: string, from: number, log: (message: string) => void): Promise<void> {
  for (let format = from; format < DATA_FORMAT.format; format++) {
    const step = MIGRATIONS[format];
    if (!step) throw new StartupError(`data dir ${dataDir} has format ${format}, which this Sawmill ${SAWMILL_VERSION} cannot migrate: upgrade through an earlier release first`);
    await step(dataDir);
    log(`data dir ${dataDir}: migrated from format ${format} to ${format + 1}`);
  }
}

/** Written atomically (temporary file, fsync, rename): a crash leaves the old marker or the new. */
async function writeMarker(dataDir: string): Promise<void> {
  const path = join(dataDir, MARKER_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  const marker: Marker = { ...DATA_FORMAT, written_by: SAWMILL_VERSION };
  const file = await open(temporary, 'w', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(marker, null, 2)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
}
