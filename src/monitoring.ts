import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { EndpointService } from './endpoints/service.ts';
import { Counter, FOLD_SIZE_BUCKETS, Histogram, LATENCY_BUCKETS, Observed, Registry } from './metrics.ts';
import type { EventWriter } from './pipeline/writer.ts';
import { libuvThreadpoolSize } from './warehouse/duckdb/reader-pool.ts';
import type { Warehouse } from './warehouse/types.ts';

/** What /metrics and the console's Status page show; see the README's "Monitoring" section. */
export class SawmillMetrics {
  readonly registry = new Registry();
  readonly ingestRequests = this.registry.add(new Counter('sawmill_ingest_requests_total', 'Ingestion requests by source name and HTTP status ("" when no source was resolved).'));
  readonly ingestEvents = this.registry.add(new Counter('sawmill_ingest_events_total', 'Events in ingestion requests by source name and outcome (accepted: acknowledged as stored; rejected: invalid).'));
  readonly foldSeconds = this.registry.add(new Histogram('sawmill_fold_duration_seconds', 'Time of each commit of acknowledged events into the warehouse.', LATENCY_BUCKETS));
  readonly foldEvents = this.registry.add(new Histogram('sawmill_fold_events', 'Events in each commit into the warehouse.', FOLD_SIZE_BUCKETS));
  readonly visibilityLag = this.registry.add(
    new Histogram('sawmill_visibility_lag_seconds', 'Per request, time from acknowledgement (journal fsync) until its events can be queried.', LATENCY_BUCKETS),
  );
  readonly endpointSeconds = this.registry.add(
    new Histogram('sawmill_endpoint_request_duration_seconds', 'Endpoint query requests by HTTP status, from request to reply.', LATENCY_BUCKETS),
  );
  private warehouseMemoryBytes: number | undefined;
  private fileBytes = new Map<string, number>();

  constructor(parts: { writer: EventWriter; endpoints: EndpointService; storage: Warehouse; dataDir: string; maxQueuedEvents: number }) {
    const { writer, endpoints, storage, dataDir } = parts;
    this.registry.add(new Observed('sawmill_queue_events', 'Events acknowledged or waiting but not yet in the warehouse.', 'gauge', () => [{ value: writer.backlog }]));
    this.registry.add(new Observed('sawmill_queue_capacity_events', 'Queued events beyond which ingestion answers 429 (SAWMILL_MAX_QUEUED_EVENTS).', 'gauge', () => [{ value: parts.maxQueuedEvents }]));
    this.registry.add(
      new Observed('sawmill_endpoint_cache_requests_total', 'Runs of endpoints that cache results, by whether the cache answered.', 'counter', () => [
        { labels: { result: 'hit' }, value: endpoints.cacheHits },
        { labels: { result: 'miss' }, value: endpoints.cacheMisses },
      ]),
    );
    this.registry.add(
      new Observed('sawmill_endpoint_memo_bytes', 'Bytes the endpoint result cache (SAWMILL_CACHE_MAX_BYTES) and the translation memo hold, keys included.', 'gauge', () => [
        { labels: { memo: 'results' }, value: endpoints.memoryBytes.cache },
        { labels: { memo: 'translations' }, value: endpoints.memoryBytes.translations },
      ]),
    );
    this.registry.add(
      new Observed('sawmill_warehouse_memory_bytes', 'Memory DuckDB holds (duckdb_memory()), within SAWMILL_MEMORY_LIMIT.', 'gauge', () =>
        this.warehouseMemoryBytes === undefined ? [] : [{ value: this.warehouseMemoryBytes }],
      ),
    );
    this.registry.add(
      new Observed('sawmill_data_file_bytes', 'Size of the files in the data dir Sawmill writes most: the DuckDB file and its write-ahead log.', 'gauge', () =>
        [...this.fileBytes].map(([file, value]) => ({ labels: { file }, value })),
      ),
    );
    this.registry.add(
      new Observed('sawmill_threadpool_threads', "libuv's threadpool (UV_THREADPOOL_SIZE), shared by DuckDB queries and file operations.", 'gauge', () => [
        { value: libuvThreadpoolSize() },
      ]),
    );
    this.registry.add(new Observed('sawmill_process_resident_memory_bytes', 'Resident set size of the Sawmill process.', 'gauge', () => [{ value: process.memoryUsage.rss() }]));
    this.registry.add(new Observed('sawmill_process_uptime_seconds', 'Seconds since the process started.', 'gauge', () => [{ value: Math.round(process.uptime()) }]));

    const checkpoints = storage.checkpoints?.bind(storage);
    if (checkpoints) {
      this.registry.add(
        new Observed('sawmill_checkpoints_total', 'DuckDB checkpoints (the write-ahead log folded into the database file) by outcome; failed ones are retried.', 'counter', () => {
          const { ok, failed } = checkpoints();
          return [
            { labels: { outcome: 'ok' }, value: ok },
            { labels: { outcome: 'failed' }, value: failed },
          ];
        }),
      );
    }
    if (storage.engine === 'duckdb') {
      this.registry.beforeScrape(async () => {
        const [row] = await storage.query('SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()', {}, { timeoutMs: 2_000, maxRows: 1 });
        this.warehouseMemoryBytes = Number(row?.bytes ?? 0);
      });
      this.registry.beforeScrape(async () => {
        for (const file of ['sawmill.duckdb', 'sawmill.duckdb.wal']) {
          const size = await stat(join(dataDir, file)).then((info) => info.size, () => 0);
          this.fileBytes.set(file, size);
        }
      });
    }
  }
}
