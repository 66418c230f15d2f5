import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './process.ts';

/**
 * A PostgreSQL database for one test file. `.ci/run` starts a throwaway cluster and exports
 * SAWMILL_TEST_POSTGRES_URL; without it a cluster is started here from Debian's `postgresql`
 * binaries (as the `postgres` user when running as root) in a temp dir, and removed after.
 * Each call creates its own database, so test files can share a cluster.
 */

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

function binaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

/** Why PostgreSQL is not available here, or undefined when it is. */
export function postgresUnavailable(): string | undefined {
  if (process.env.SAWMILL_TEST_POSTGRES_URL) return undefined;
  if (!binaries()) return 'PostgreSQL is not installed (Debian package postgresql) and SAWMILL_TEST_POSTGRES_URL is not set';
  return undefined;
}

function run(command: string, args: string[], asPostgres: boolean): void {
  const [file, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
}

async function startCluster(): Promise<{ url: string; stop(): void }> {
  const bin = binaries();
  if (!bin) throw new Error(postgresUnavailable());
  const asPostgres = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'sawmill-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  if (asPostgres) run('chown', ['postgres', dir], false);
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], asPostgres);
  run(join(bin, 'pg_ctl'), ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off`, 'start'], asPostgres);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-w', '-m', 'immediate', 'stop'], asPostgres);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export async function startPostgres(): Promise<TestPostgres> {
  const cluster = process.env.SAWMILL_TEST_POSTGRES_URL ? undefined : await startCluster();
  const adminUrl = process.env.SAWMILL_TEST_POSTGRES_URL ?? cluster!.url;
  const database = `sawmill_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    stop: async () => {
      if (cluster) return cluster.stop();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

export { skipUnlessAvailable } from './requirements.ts';
