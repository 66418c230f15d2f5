/**
 * Turning generated events into the NDJSON Sawmill's warehouse stages for `read_json`: the same
 * normalisation (src/pipeline/normalize.ts) and the same shaping to the column types
 * (src/warehouse/schema.ts `conform`) the server applies, so the bulk load that serves as the
 * engine ceiling does exactly the database work of an ingest commit, minus HTTP and JS.
 *
 * Runs in child processes (see `stageChunks`; tsx's loader does not reach worker threads on Node 20).
 */
import { createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { normalizeEvent } from '../src/pipeline/normalize.ts';
import { conform } from '../src/warehouse/schema.ts';
import type { RecordFields } from '../src/warehouse/types.ts';
import { EventGenerator, type EventKind } from './generator.ts';

export interface ChunkJob {
  kind: EventKind;
  /** Events [start, start + count) of `total`, in time order over [fromMs, toMs]. */
  start: number;
  count: number;
  total: number;
  fromMs: number;
  toMs: number;
  seed: number;
  /** The source's current columns (fixed ones excluded). */
  fields: RecordFields;
  file: string;
}

export interface ChunkResult {
  file: string;
  events: number;
  /** Bytes of the events as the sender's NDJSON (compact JSON, one per line). */
  rawBytes: number;
  stagedBytes: number;
}

async function writeChunk(job: ChunkJob): Promise<ChunkResult> {
  // One generator per chunk, seeded by the chunk: the output does not depend on which worker runs it.
  const generator = new EventGenerator({ seed: job.seed + job.start, fromMs: job.fromMs, toMs: job.toMs });
  const out = createWriteStream(job.file);
  const now = Date.now() * 1000;
  let rawBytes = 0;
  let stagedBytes = 0;
  let lines: string[] = [];
  const flush = async () => {
    const text = `${lines.join('\n')}\n`;
    stagedBytes += Buffer.byteLength(text);
    lines = [];
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  for (let i = job.start; i < job.start + job.count; i++) {
    const event = generator.event(job.kind, i, job.total);
    rawBytes += Buffer.byteLength(JSON.stringify(event)) + 1;
    const normalized = normalizeEvent(event, now);
    if (!normalized.ok) throw new Error(`generated event refused: ${normalized.error}`);
    const row = normalized.row;
    const record: Record<string, unknown> = { id: row.id, timestamp: row.timestamp, event_message: row.event_message };
    for (const [name, value] of Object.entries(row.fields)) {
      const type = job.fields.get(name);
      if (type) record[name] = conform(value, type);
    }
    lines.push(JSON.stringify(record));
    if (lines.length === 5000) await flush();
  }
  if (lines.length > 0) await flush();
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { file: job.file, events: job.count, rawBytes, stagedBytes };
}

/** Write the chunks with one child process per core; results in job order. */
export async function stageChunks(jobs: ChunkJob[], workers = availableParallelism()): Promise<ChunkResult[]> {
  const results: ChunkResult[] = new Array(jobs.length);
  let next = 0;
  const runWorker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await new Promise<ChunkResult>((resolve, reject) => {
        const child = fork(fileURLToPath(import.meta.url), ['--stage-worker'], { execArgv: ['--import', 'tsx'], serialization: 'advanced' });
        child.once('message', (result) => {
          resolve(result as ChunkResult);
          child.disconnect();
        });
        child.once('error', reject);
        child.once('exit', (code) => code !== 0 && reject(new Error(`stage worker exited with ${code}`)));
        child.send(jobs[index]!);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, jobs.length) }, runWorker));
  return results;
}

if (process.argv.includes('--stage-worker')) {
  process.once('message', (job) => {
    writeChunk(job as ChunkJob).then(
      (result) => process.send!(result),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
