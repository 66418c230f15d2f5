import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { compileMatcher, MAX_QUERY_LENGTH, parseLql } from '../../explorer/lql.ts';
import { RegexSkipped } from '../../explorer/regex.ts';
import { compileFilter } from '../../explorer/sql.ts';
import { AppError } from '../../errors.ts';
import type { LogRow } from '../../warehouse/types.ts';
import { callerIdentity, who, type Caller } from '../fairness.ts';
import type { Services } from '../services.ts';
import { readableSource, requireReader } from './explorer-access.ts';

const HEARTBEAT_MS = 15_000;
/** A reader this far behind (bytes queued in the socket) is skipped until it catches up. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Most events sent for one commit: a tail is for watching, the explorer is for reading it all. */
const MAX_EVENTS_PER_COMMIT = 500;

const tailInput = z.object({ q: z.string().max(MAX_QUERY_LENGTH).optional().default('') });

/**
 * An event in the shape queries return it: objects as one-element lists of records, as BigQuery
 * (and the explorer) show them.
 */
function wireValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isPlainObject(item) ? wireRecord(item) : wireValue(item)));
  if (isPlainObject(value)) return [wireRecord(value)];
  return value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function wireRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, wireValue(value)]));
}

export function wireEvent(row: LogRow): Record<string, unknown> {
  return { id: row.id, timestamp: row.timestamp, event_message: row.event_message, ...wireRecord(row.fields) };
}

function filterRows(rows: LogRow[], matches: (row: LogRow) => boolean): { selected: LogRow[]; unfiltered: number } {
  const selected: LogRow[] = [];
  let unfiltered = 0;
  for (const row of rows) {
    try {
      if (matches(row)) selected.push(row);
    } catch (error) {
      if (!(error instanceof RegexSkipped)) throw error;
      unfiltered++;
    }
  }
  return { selected, unfiltered };
}

/**
 * Each caller's open tails, at most `perCaller` at once: every tail costs a filter run and a write
 * per commit of its source, and a key that opened them without end would make every fold slower.
 */
class OpenTails {
  private readonly counts = new Map<string, number>();

  constructor(private readonly perCaller: number) {}

  /** Count one more tail for `caller`, or refuse with 429; the function given back closes it (once). */
  open(caller: Caller): () => void {
    const count = this.counts.get(caller.id) ?? 0;
    if (count >= this.perCaller) {
      throw new AppError(429, 'too_many_tails', `${who(caller)} has ${count} live tails open, the most allowed (SAWMILL_CALLER_TAILS); close one first (a tail ends when its connection closes)`);
    }
    this.counts.set(caller.id, count + 1);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const left = (this.counts.get(caller.id) ?? 1) - 1;
      if (left > 0) this.counts.set(caller.id, left);
      else this.counts.delete(caller.id);
    };
  }
}

/**
 * Live tail as server-sent events: every committed batch of the source, filtered by the same LQL
 * the explorer takes, as `event: events` with a JSON array of events. Readers that cannot keep up
 * are told how many events they missed (`event: dropped`) rather than slowing ingestion, and so
 * are those whose regex filter could not be run (src/explorer/regex.ts).
 */
export default async function tailRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const open = new Set<ServerResponse>();
  // Streams never finish on their own: end them so that shutdown is not held up by watchers.
  app.addHook('preClose', async () => {
    for (const response of open) response.end();
  });

  const tails = new OpenTails(services.limits.tailsPerCaller);

  app.get<{ Params: { token: string } }>('/api/sources/:token/tail', async (request, reply) => {
    const source = readableSource(services, requireReader(services, request), request.params.token);
    const query = parseLql(tailInput.parse(request.query).q);
    // Refused as the explorer refuses it (unknown field, wrong type): such a filter would wait forever.
    compileFilter(query, services.warehouse.schema(source.token));
    const matches = compileMatcher(query);
    const closeTail = tails.open(callerIdentity(request));

    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies such as nginx would otherwise hold events back in their buffer.
      'x-accel-buffering': 'no',
    });
    response.write(`event: ready\ndata: ${JSON.stringify({ source: source.token, name: source.name })}\n\n`);
    open.add(response);

    let dropped = 0;
    const stopListening = services.writer.onCommitted((sourceId, _count, rows) => {
      if (sourceId !== source.token) return;
      const { selected, unfiltered } = filterRows(rows(), matches);
      // Not tested against the filter's regex (too long a value, or regexes had their share of the main thread).
      if (unfiltered > 0) response.write(`event: dropped\ndata: ${JSON.stringify({ events: unfiltered, reason: 'regex_budget' })}\n\n`);
      if (selected.length === 0) return;
      if (response.writableLength > MAX_BUFFERED_BYTES) {
        dropped += selected.length;
        return;
      }
      if (dropped > 0) {
        response.write(`event: dropped\ndata: ${JSON.stringify({ events: dropped })}\n\n`);
        dropped = 0;
      }
      const sent = selected.slice(-MAX_EVENTS_PER_COMMIT);
      if (sent.length < selected.length) response.write(`event: dropped\ndata: ${JSON.stringify({ events: selected.length - sent.length })}\n\n`);
      response.write(`event: events\ndata: ${JSON.stringify(sent.map(wireEvent))}\n\n`);
    }, { prompt: true });
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const finish = () => {
      clearInterval(heartbeat);
      stopListening();
      open.delete(response);
      closeTail();
    };
    response.once('close', finish);
    request.raw.once('close', () => response.end());
    // A client gone before the stream began may have no 'close' to come: its tail must not stay counted.
    if (request.raw.socket?.destroyed) finish();
  });
}
