/**
 * The service's one log, made before anything else starts: every line the service writes, from
 * the start (data dir upgrades, the keys in force, a repaired journal or write-ahead log, a pool
 * too small) to the requests Fastify answers and the shutdown, is one of its lines, in the format
 * SAWMILL_LOG_FORMAT names and at the level SAWMILL_LOG_LEVEL sets.
 */
import { pino, type Logger } from 'pino';
import { prettyDestination, type LogFormat } from './http/log-format.ts';

export type { Logger };

export interface LogOptions {
  level: string;
  format: LogFormat;
}

/** A log on standard output. */
export function createLogger({ level, format }: LogOptions): Logger {
  return format === 'pretty' ? pino({ level }, prettyDestination()) : pino({ level });
}
