import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A reason the service cannot start, worded for the person who started it: printed as one line. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * Fails when the port is taken, before anything is written: a second `npm start` must not create
 * a data dir or generate a key for a service that will never run. (Another process may still take
 * the port before Sawmill listens; the listen error is reported the same way.)
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => reject(portError(error, host, port)));
    probe.listen({ port, host, exclusive: true }, resolve);
  });
  await new Promise((resolve) => probe.close(resolve));
}

/** Creates the data dir if need be and proves it writable (root passes permission checks, so only a write tells). */
export async function prepareDataDir(dataDir: string): Promise<void> {
  const probe = join(dataDir, `.write-test-${process.pid}`);
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(`data dir ${dataDir} is not writable (${code ?? (error as Error).message}): fix its permissions or set SAWMILL_DATA_DIR to a directory this user can write`);
  }
}

/** The one line to print for an error at start-up: ours as they are, known ones from below reworded. */
export function startupMessage(error: unknown, context: { dataDir: string; host: string; port: number }): string {
  if (error instanceof StartupError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    if ((error as { syscall?: string }).syscall === 'listen' || code === 'EADDRINUSE') return portError(error as NodeJS.ErrnoException, context.host, context.port).message;
  }
  const message = error instanceof Error ? error.message : String(error);
  // DuckDB: `IO Error: Could not set lock on file "…/sawmill.duckdb": Conflicting lock is held in /usr/bin/node (PID 123) by user x.`
  const lock = /Could not set lock on file .*Conflicting lock is held in .*\(PID (\d+)\)/s.exec(message);
  if (lock) {
    return `data dir ${context.dataDir} is in use by another process (PID ${lock[1]}), most likely another Sawmill: stop it, or give this one its own SAWMILL_DATA_DIR`;
  }
  if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return `data dir ${context.dataDir} is not writable (${code}): ${message.split('\n')[0]}`;
  return `could not start: ${message.split('\n')[0]}`;
}

function portError(error: NodeJS.ErrnoException, host: string, port: number): StartupError {
  if (error.code === 'EADDRINUSE') return new StartupError(`port ${port} on ${host} is already in use by another process: stop it or set PORT to a free port`);
  if (error.code === 'EACCES') return new StartupError(`port ${port} on ${host} needs privileges this user lacks: set PORT to 1024 or above`);
  if (error.code === 'EADDRNOTAVAIL') return new StartupError(`HOST ${host} is not an address of this machine`);
  return new StartupError(`cannot listen on ${host}:${port}: ${error.message}`);
}
