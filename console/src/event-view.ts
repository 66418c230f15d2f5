/**
 * Events as a person reads them. The API returns them in query-result shape: every column of
 * the source (NULL where this event had no such field), objects as one-element lists of
 * records, times as microseconds.
 */
import type { LogEvent } from './api.ts';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function asSent(value: unknown): unknown {
  if (Array.isArray(value)) {
    // An object was sent: it is stored as a list holding that one record.
    if (value.length === 1 && isRecord(value[0])) return asSent(value[0]);
    return value.map(asSent);
  }
  if (isRecord(value)) {
    const fields = Object.entries(value).filter(([, field]) => field !== null && field !== undefined);
    return Object.fromEntries(fields.map(([name, field]) => [name, asSent(field)]));
  }
  return value;
}

/** The event as it was sent: no NULLs for fields only other events have, objects as objects, the time in ISO 8601. */
export function eventAsSent(event: LogEvent): Record<string, unknown> {
  const shown = asSent(event) as Record<string, unknown>;
  return { ...shown, timestamp: new Date(event.timestamp / 1000).toISOString() };
}

/** The names a level goes by: loggers' `level`, OpenTelemetry's `severity_text`. */
const LEVEL_FIELDS = ['level', 'severity_text'];

/** The event's level, from the top level or metadata, as written. */
export function levelOf(event: LogEvent): string | undefined {
  const metadata = Array.isArray(event.metadata) ? event.metadata[0] : event.metadata;
  for (const record of [event, metadata]) {
    if (!isRecord(record)) continue;
    for (const name of LEVEL_FIELDS) {
      const value = record[name];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return undefined;
}

/** A level's colour class: the many spellings loggers use fall into five. */
export function levelClass(level: string): string {
  const name = level.toLowerCase();
  if (/^(error|err|fatal|critical|crit|alert|emerg|emergency|panic)/.test(name)) return 'level-error';
  if (/^warn/.test(name)) return 'level-warn';
  if (/^(info|notice|log)/.test(name)) return 'level-info';
  if (/^(debug|trace)/.test(name)) return 'level-debug';
  return 'level-other';
}

/** The search clause that keeps events whose field at `path` equals `value`. */
export function filterClause(path: string[], value: unknown): string {
  const field = (path[0] === 'metadata' ? ['m', ...path.slice(1)] : path).join('.');
  const text = String(value);
  const bare = typeof value !== 'string' || (/^[\w./@+-]+$/.test(text) && text !== 'NULL' && !text.includes('..') && !/^[-(]/.test(text) && !text.endsWith(')'));
  return `${field}:${bare ? text : `"${text.replace(/(["\\])/g, '\\$1')}"`}`;
}
