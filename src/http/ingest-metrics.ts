import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { recordEvents, type JournalEvents } from '../pipeline/journal.ts';
import type { Services } from './services.ts';

/** The source each ingestion request was resolved to, for its line in /metrics. */
const sourceNames = new WeakMap<FastifyRequest, string>();

/** Counts every request of an ingestion plugin by source and status, refused ones included. */
export function countIngestRequests(app: FastifyInstance, services: Services): void {
  app.addHook('onResponse', (request, reply, done) => {
    services.metrics.ingestRequests.inc({ source: sourceNames.get(request) ?? '', status: String(reply.statusCode) });
    done();
  });
}

export function noteIngestSource(request: FastifyRequest, sourceName: string): void {
  sourceNames.set(request, sourceName);
}

/**
 * `?wait=visible`: answer once the request's events can be queried, not only once they are durable
 * (read-your-writes for a sender that queries next; it costs the server smaller folds).
 */
export function waitsForVisibility(query: unknown): boolean {
  const wait = (query as { wait?: unknown } | undefined)?.wait;
  if (wait === undefined) return false;
  if (wait === 'visible') return true;
  throw new AppError(400, 'invalid_parameter', `query parameter wait must be "visible" (answer once the events can be queried), got ${JSON.stringify(wait)}`);
}

/**
 * Counts a request's events once the writer answers: accepted (acknowledged), rejected (invalid,
 * counted at once) or refused (a full queue or a failed write). Returns the write's promise,
 * which with `visible` resolves only once the events can be read.
 */
export function countedWrite<T>(
  services: Services,
  source: { token: string; name: string },
  events: JournalEvents,
  rejected: number,
  then: () => T,
  visible = false,
): Promise<T> {
  const counted = services.metrics.ingestEvents;
  if (rejected > 0) counted.inc({ source: source.name, outcome: 'rejected' }, rejected);
  const count = recordEvents(events);
  const written = services.writer.write(source.token, events);
  return (visible ? written.then(() => services.writer.visible()) : written).then(
    () => {
      counted.inc({ source: source.name, outcome: 'accepted' }, count);
      return then();
    },
    (error: unknown) => {
      counted.inc({ source: source.name, outcome: 'refused' }, count);
      throw error;
    },
  );
}
