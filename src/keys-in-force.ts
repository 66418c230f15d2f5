import { existsSync } from 'node:fs';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKey, hashKey } from './catalog/access.ts';
import type { Config } from './config.ts';

/**
 * Which private and ingest keys are in force, decided once at start. A key set in the
 * environment is remembered in the data dir by its SHA-256 (never the key), so that an empty or
 * unset variable later (the root docker-compose.yml passes `SAWMILL_API_KEY=` when it is unset)
 * keeps it in force instead of silently putting another key in its place, as Logflare keeps the
 * access token its variable once created. A new non-empty value replaces the remembered one.
 * With no key set now or before, the private key is generated once into `private-key`.
 */

export const ENVIRONMENT_KEYS_FILE = 'environment-keys.json';
export const GENERATED_KEY_FILE = 'private-key';

type Kind = 'private' | 'ingest';

interface Remembered {
  /** The variable that set it, for the start's log line. */
  variable: string;
  sha256: string;
  set_at: string;
}

export interface KeysInForce {
  /** SHA-256 (hex) of the private key. */
  privateKeyHash: string;
  ingestKeyHash: string | undefined;
  /** One line per key saying where it comes from, for the log (never the key). */
  sources: string[];
}

export async function keysInForce(config: Pick<Config, 'dataDir' | 'privateKey' | 'ingestKey' | 'privateKeyVariable' | 'ingestKeyVariable'>): Promise<KeysInForce> {
  const path = join(config.dataDir, ENVIRONMENT_KEYS_FILE);
  const remembered = await readRemembered(path);
  const sources: string[] = [];
  let changed = false;

  const fromEnvironment = (kind: Kind, key: string | undefined, variable: string | undefined): string | undefined => {
    const name = variable ?? (kind === 'private' ? 'SAWMILL_API_KEY' : 'SAWMILL_INGEST_KEY');
    const label = `${kind} key`;
    const before = remembered[kind];
    if (key) {
      const sha256 = hashKey(key);
      const replaced = before !== undefined && before.sha256 !== sha256;
      if (before?.sha256 !== sha256) {
        remembered[kind] = { variable: name, sha256, set_at: new Date().toISOString() };
        changed = true;
      }
      sources.push(`${label}: ${name} from the environment${replaced ? `, in place of the one ${before.variable} set on ${before.set_at}` : ''}`);
      return sha256;
    }
    if (before) {
      sources.push(`${label}: the one ${before.variable} set on ${before.set_at} (${name} is empty or unset now; ${ENVIRONMENT_KEYS_FILE} in the data dir remembers it)`);
      return before.sha256;
    }
    return undefined;
  };

  const privateFromEnvironment = fromEnvironment('private', config.privateKey, config.privateKeyVariable);
  const ingestKeyHash = fromEnvironment('ingest', config.ingestKey, config.ingestKeyVariable);
  if (!ingestKeyHash) sources.push('ingest key: none (keys with the ingest scope can be created with `sawmill keys create`)');
  if (changed) await writeRemembered(path, remembered);
  const privateKeyHash = privateFromEnvironment ?? (await generatedKeyHash(config.dataDir, sources));
  return { privateKeyHash, ingestKeyHash, sources };
}

/** The generated private key's hash, generating it on first start. */
async function generatedKeyHash(dataDir: string, sources: string[]): Promise<string> {
  const path = join(dataDir, GENERATED_KEY_FILE);
  if (existsSync(path)) {
    sources.unshift(`private key: generated at first start, in ${path}`);
    return hashKey((await readFile(path, 'utf8')).trim());
  }
  await writeFile(path, `${generateKey()}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  sources.unshift(`private key: none set (SAWMILL_API_KEY): generated a private key, stored in ${path}`);
  return hashKey((await readFile(path, 'utf8')).trim());
}

async function readRemembered(path: string): Promise<Partial<Record<Kind, Remembered>>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Partial<Record<Kind, Remembered>>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${path} cannot be read (${(error as Error).message}): restore it from a backup, or remove it to forget the keys the environment set before`);
  }
}

/** Written atomically: a crash leaves the old file or the new. */
async function writeRemembered(path: string, remembered: Partial<Record<Kind, Remembered>>): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(remembered, null, 2)}\n`, { mode: 0o600, flush: true });
  await rename(temporary, path);
}
