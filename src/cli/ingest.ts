import { fstatSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { CliError } from './client.ts';
import type { CommandContext } from './main.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A request stays well under the service's default 12 MB body limit. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const DEFAULT_BATCH_LINES = 1_000;
const SHOWN_ERRORS = 5;

interface IngestReply {
  accepted: number;
  rejected: number;
  errors?: Array<{ index: number; message: string }>;
}

/** One status line on stderr, redrawn in place on a terminal; a bar when stdin is a file of known size. */
class Progress {
  private readonly started = Date.now();
  private lastDraw = 0;

  constructor(
    private readonly totalBytes: number | undefined,
    private readonly live: boolean,
  ) {}

  draw(state: { bytes: number; accepted: number; rejected: number }, final = false): void {
    const now = Date.now();
    if (!final && (!this.live || now - this.lastDraw < 100)) return;
    this.lastDraw = now;
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = Math.round(state.accepted / seconds).toLocaleString('en-US');
    let bar = '';
    if (this.totalBytes) {
      const fraction = Math.min(state.bytes / this.totalBytes, 1);
      const filled = Math.round(fraction * 24);
      bar = `[${'#'.repeat(filled)}${'.'.repeat(24 - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  `;
    }
    const line = `${bar}${state.accepted.toLocaleString('en-US')} events sent, ${rate}/s${state.rejected ? `, ${state.rejected} rejected` : ''}`;
    if (this.live) process.stderr.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else if (final) process.stderr.write(`${line}\n`);
  }
}

/**
 * The service's words for a line's problem without its numbering, which counts lines within one
 * request (the CLI knows the line in the input); "at line 1 column C" is within that line.
 */
export function problemText(message: string): string {
  return message
    .replace(/^\d{3}: /, '')
    .replace(/^no event could be stored: /, '')
    .replace(/^line \d+(?: is|:) /, '')
    .replace(/ at line 1 column (\d+)$/, ' at column $1');
}

/** Which line of a request the service's message names (1-based), when it names one. */
const requestLine = (message: string) => Number(/\bline (\d+)\b/.exec(message)?.[1] ?? 1);

function stdinSize(): number | undefined {
  try {
    const stat = fstatSync(0);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/** `sawmill ingest <source>`: NDJSON from stdin, sent in batches, each acknowledged once durable. */
export async function ingestCommand({ client, positionals, values, json, out, err }: CommandContext): Promise<void> {
  const [source] = positionals;
  if (!source) throw new CliError('usage: sawmill ingest <source> [--batch N] < events.ndjson', 2);
  const batchLines = values.batch === undefined ? DEFAULT_BATCH_LINES : Number(values.batch);
  if (!Number.isInteger(batchLines) || batchLines < 1) throw new CliError('--batch must be a positive integer', 2);
  const target = UUID.test(source) ? `source=${source}` : `source_name=${encodeURIComponent(source)}`;

  const progress = new Progress(stdinSize(), process.stderr.isTTY === true);
  const state = { bytes: 0, accepted: 0, rejected: 0 };
  const shown: string[] = [];
  let lines: string[] = [];
  let lineNumbers: number[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;

  const send = async () => {
    if (lines.length === 0) return;
    const reply = await client
      .request<IngestReply>('POST', `/logs?${target}`, `${lines.join('\n')}\n`, { contentType: 'application/x-ndjson', raw: true })
      .catch((error: unknown) => {
        // No line of this batch could be stored: the service names the first bad one.
        if (error instanceof CliError && /^400:/.test(error.message)) return { accepted: 0, rejected: lines.length, errors: [{ index: requestLine(error.message) - 1, message: error.message }] };
        throw error;
      });
    state.accepted += reply.accepted;
    state.rejected += reply.rejected;
    for (const problem of reply.errors ?? []) {
      if (shown.length < SHOWN_ERRORS) shown.push(`line ${lineNumbers[problem.index] ?? '?'}: ${problemText(problem.message)}`);
    }
    lines = [];
    lineNumbers = [];
    pendingBytes = 0;
    progress.draw(state);
  };

  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of input) {
    lineNumber++;
    state.bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    lines.push(line);
    lineNumbers.push(lineNumber);
    pendingBytes += Buffer.byteLength(line) + 1;
    if (lines.length >= batchLines || pendingBytes >= MAX_BATCH_BYTES) await send();
  }
  await send();
  progress.draw(state, true);
  for (const problem of shown) err(`  ${problem}`);
  if (state.rejected > shown.length && shown.length > 0) err(`  … and ${state.rejected - shown.length} more`);
  if (json) out(JSON.stringify({ accepted: state.accepted, rejected: state.rejected }));
  // A script must be able to tell: anything not stored is a failure.
  if (state.accepted === 0 && state.rejected === 0) throw new CliError('no events on stdin: nothing was stored');
  if (state.accepted === 0) throw new CliError(`no event was stored (${state.rejected} rejected)`);
  if (state.rejected > 0) throw new CliError(`${state.rejected} of ${state.accepted + state.rejected} events were not stored`);
}
