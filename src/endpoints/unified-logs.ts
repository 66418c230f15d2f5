/**
 * The endpoints hosted Supabase serves its ClickHouse `logs` table through: `logs.all.otel`
 * (Studio's Logs Explorer) and `logs` (the Management API's
 * `GET /v1/projects/{ref}/analytics/endpoints/logs`). Their rules are Supabase's:
 *
 * - `sql` is a whole query over the unified `logs` table (src/sql/unified-logs.ts), the one table
 *   it may read; without `sql` the endpoint's own query runs (recent edge logs).
 * - `iso_timestamp_start` / `iso_timestamp_end` bound the events every source gives; with neither,
 *   only the last minute. A window longer than 24 hours (rounded to the minute) is refused.
 * - `select *` and `count(*)` are refused (Supabase's logs query surface rejects both: list the
 *   columns, count with `count()`).
 */

import type { Endpoint } from '../catalog/types.ts';
import { AppError } from '../errors.ts';

export const UNIFIED_LOGS_ENDPOINTS: ReadonlySet<string> = new Set(['logs.all.otel', 'logs']);

export const isUnifiedLogsEndpoint = (endpoint: Pick<Endpoint, 'name'>): boolean => UNIFIED_LOGS_ENDPOINTS.has(endpoint.name);

/** The window parameters, bound as ISO 8601 strings. */
export const WINDOW = { start: 'iso_timestamp_start', end: 'iso_timestamp_end' } as const;

const MINUTE_MS = 60_000;
const MAX_WINDOW_MS = 24 * 60 * MINUTE_MS;

const badRequest = (message: string) => new AppError(400, 'invalid_request', message);

function instant(request: Record<string, string>, name: string): number | undefined {
  const value = request[name];
  if (value === undefined || value === '') return undefined;
  const millis = Date.parse(value);
  if (!Number.isFinite(millis)) throw badRequest(`${name} must be an ISO 8601 timestamp, got "${value.slice(0, 64)}"`);
  return millis;
}

/**
 * The window a request asks for, as the parameters the query binds. Neither bound: the last
 * minute. Only a start: from it to now. Only an end: the minute before it.
 */
export function logsWindow(request: Record<string, string>, now: number = Date.now()): Record<string, string> {
  const start = instant(request, WINDOW.start);
  const end = instant(request, WINDOW.end) ?? (start === undefined ? now : Math.max(now, start));
  const from = start ?? end - MINUTE_MS;
  if (end < from) throw badRequest(`${WINDOW.end} is before ${WINDOW.start}`);
  if (Math.round((end - from) / MINUTE_MS) * MINUTE_MS > MAX_WINDOW_MS) {
    throw badRequest(`the window from ${WINDOW.start} to ${WINDOW.end} is longer than 24 hours; query at most 24 hours at a time`);
  }
  return { [WINDOW.start]: new Date(from).toISOString(), [WINDOW.end]: new Date(end).toISOString() };
}

/**
 * `count(*)` anywhere outside strings and comments. (`select *` is found in the parsed query,
 * where `t.*` and `* EXCEPT` count too: src/sql/unified-logs.ts.)
 */
export function refuseCountStar(sql: string): void {
  const code = withoutStringsAndComments(sql);
  const match = /\bcount\s*\(\s*\*\s*\)/i.exec(code);
  if (match) throw new AppError(400, 'invalid_sql', `count(*) is not allowed on the logs endpoints; use count()`, lineAndColumn(sql, match.index));
}

/** `sql` with every string, quoted name and comment blanked out (same length, so offsets hold). */
function withoutStringsAndComments(sql: string): string {
  let out = '';
  let index = 0;
  while (index < sql.length) {
    const char = sql[index]!;
    const next = sql[index + 1];
    let end = index + 1;
    if (char === '-' && next === '-') end = lineEnd(sql, index);
    else if (char === '#') end = lineEnd(sql, index);
    else if (char === '/' && next === '*') end = Math.min(sql.length, (sql.indexOf('*/', index + 2) + 1 || sql.length - 1) + 1);
    else if (char === "'" || char === '"' || char === '`') end = quotedEnd(sql, index, char);
    else {
      out += char;
      index++;
      continue;
    }
    out += ' '.repeat(end - index);
    index = end;
  }
  return out;
}

const lineEnd = (sql: string, from: number) => (sql.indexOf('\n', from) + 1 || sql.length + 1) - 1;

function quotedEnd(sql: string, from: number, quote: string): number {
  let index = from + 1;
  while (index < sql.length) {
    if (sql[index] === '\\') index += 2;
    else if (sql[index] === quote) return index + 1;
    else index++;
  }
  return sql.length;
}

function lineAndColumn(sql: string, offset: number): { line: number; column: number } {
  const before = sql.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}
