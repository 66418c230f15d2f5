import { AppError } from '../errors.ts';
import { translate, type SqlDialect } from '../sql/index.ts';
import type { ResultRow, Warehouse } from '../warehouse/types.ts';
import { parseLql } from './lql.ts';
import { decodeCursor, encodeCursor, eventsQuery, SOURCE_TABLE, statsQuery, volumeQuery, type TimeWindow } from './sql.ts';

export interface ExplorerOptions {
  queryTimeoutMs: number;
}

export const MAX_PAGE = 1_000;
/** The chart never asks for more buckets than this. */
export const MAX_BUCKETS = 240;
/** Bucket widths a chart picks from, in seconds: round numbers a reader recognises. */
const BUCKET_SECONDS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

/** Events arrived per source over the last minute, counted as the writer commits them. */
export class IngestMeter {
  /** Per source: counts for each of the last 60 seconds, indexed by epoch second mod 60. */
  private readonly seconds = new Map<string, { counts: number[]; stamps: number[] }>();

  record(sourceId: string, events: number, nowMs = Date.now()): void {
    const second = Math.floor(nowMs / 1000);
    let entry = this.seconds.get(sourceId);
    if (!entry) this.seconds.set(sourceId, (entry = { counts: new Array(60).fill(0), stamps: new Array(60).fill(-1) }));
    const slot = second % 60;
    if (entry.stamps[slot] !== second) {
      entry.stamps[slot] = second;
      entry.counts[slot] = 0;
    }
    entry.counts[slot]! += events;
  }

  lastMinute(sourceId: string, nowMs = Date.now()): number {
    const entry = this.seconds.get(sourceId);
    if (!entry) return 0;
    const now = Math.floor(nowMs / 1000);
    let total = 0;
    for (let slot = 0; slot < 60; slot++) if (now - entry.stamps[slot]! < 60) total += entry.counts[slot]!;
    return total;
  }
}

/** A time given as ISO 8601 or as epoch milliseconds, in microseconds. */
export function parseTime(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const millis = /^\d{1,15}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(millis)) throw new AppError(400, 'invalid_time', `${name} must be an ISO 8601 time or epoch milliseconds, got "${value.slice(0, 64)}"`);
  return Math.trunc(millis * 1000);
}

export interface EventsRequest extends TimeWindow {
  q: string;
  limit: number;
  before?: string | undefined;
}

/** The log explorer's reads: filtered pages of events, volume per bucket, per-source totals. */
export class Explorer {
  constructor(
    private readonly warehouse: Warehouse,
    private readonly dialect: SqlDialect,
    private readonly options: ExplorerOptions,
  ) {}

  private run(sourceId: string, query: { sql: string; params: Record<string, string> }, maxRows: number): Promise<ResultRow[]> {
    const relation = this.warehouse.relation(sourceId);
    const translation = translate(query.sql, this.dialect, { resolveTable: (name) => (name === SOURCE_TABLE ? relation : undefined) });
    const params = Object.fromEntries(translation.parameters.map((name) => [name, query.params[name] ?? null]));
    return this.warehouse.query(translation.sql, params, { timeoutMs: this.options.queryTimeoutMs, maxRows });
  }

  async events(sourceId: string, request: EventsRequest) {
    const limit = Math.min(Math.max(1, request.limit), MAX_PAGE);
    const query = eventsQuery(parseLql(request.q), this.warehouse.schema(sourceId), request, {
      // One more than asked tells whether another page exists.
      limit: limit + 1,
      before: request.before ? decodeCursor(request.before) : undefined,
    });
    const rows = await this.run(sourceId, query, limit + 1);
    // A path through a repeated record yields an event once per matching element: show it once.
    const seen = new Set<unknown>();
    const unique = rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
    const events = unique.slice(0, limit);
    const last = events.at(-1);
    const more = rows.length > limit && last !== undefined;
    return {
      events,
      next_before: more ? encodeCursor({ timestampMicros: Number(last.timestamp), id: String(last.id) }) : null,
    };
  }

  async volume(sourceId: string, request: { q: string; fromMicros: number; toMicros: number; buckets?: number | undefined }) {
    if (request.toMicros <= request.fromMicros) throw new AppError(400, 'invalid_time', 'to must be after from');
    const wanted = Math.min(Math.max(1, request.buckets ?? 60), MAX_BUCKETS);
    const spanSeconds = (request.toMicros - request.fromMicros) / 1e6;
    const bucketSeconds = BUCKET_SECONDS.find((width) => spanSeconds / width <= wanted) ?? Math.ceil(spanSeconds / wanted / 86400) * 86400;
    const bucketMicros = bucketSeconds * 1e6;
    const query = volumeQuery(parseLql(request.q), this.warehouse.schema(sourceId), request, bucketMicros);
    const rows = await this.run(sourceId, query, MAX_BUCKETS * 2 + 2);
    const counts = new Map(rows.map((row) => [Number(row.bucket), Number(row.events)]));
    // Every bucket of the range, empty ones included, so the chart's x axis is the range.
    const buckets: Array<{ time: number; events: number }> = [];
    const first = Math.floor(request.fromMicros / bucketMicros) * bucketMicros;
    for (let time = first; time < request.toMicros; time += bucketMicros) buckets.push({ time, events: counts.get(time) ?? 0 });
    return { bucket_seconds: bucketSeconds, buckets };
  }

  async totals(sourceId: string): Promise<{ events: number; last_event: number | null }> {
    const [row] = await this.run(sourceId, statsQuery(), 1);
    return { events: Number(row?.events ?? 0), last_event: row?.last_event == null ? null : Number(row.last_event) };
  }
}
