import type { FastifyInstance, FastifyRequest } from 'fastify';
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
 * Counts a request's events once the writer answers: accepted (acknowledged), rejected (invalid,
 * counted at once) or refused (a full queue or a failed write). Returns the write's promise.
 */
export function countedWrite<T>(services: Services, source: { token: string; name: string }, rows: Parameters<Services['writer']['write']>[1], rejected: number, then: () => T): Promise<T> {
  const counted = services.metrics.ingestEvents;
  if (rejected > 0) counted.inc({ source: source.name, outcome: 'rejected' }, rejected);
  return services.writer.write(source.token, rows).then(
    () => {
      counted.inc({ source: source.name, outcome: 'accepted' }, rows.length);
      return then();
    },
    (error: unknown) => {
      counted.inc({ source: source.name, outcome: 'refused' }, rows.length);
      throw error;
    },
  );
}
