import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_OWNER_ID, KeyRing } from './catalog/access.ts';
import { FileCatalog } from './catalog/file-catalog.ts';
import { PostgresCatalog } from './catalog/postgres-catalog.ts';
import type { Config } from './config.ts';
import { EndpointService } from './endpoints/service.ts';
import { keysInForce } from './keys-in-force.ts';
import { createLogger, type Logger } from './log.ts';
import { requestLimits } from './ingest/request-limits.ts';
import { SawmillMetrics } from './monitoring.ts';
import { buildApp } from './http/app.ts';
import { QueryFairness } from './http/fairness.ts';
import type { Services } from './http/services.ts';
import { Journal } from './pipeline/journal.ts';
import { SpareSegment } from './pipeline/spare-segment.ts';
import { ReadAfterWrite } from './pipeline/read-after-write.ts';
import { EventWriter } from './pipeline/writer.ts';
import { provisionAddedEndpoints, provisionSupabase, sandboxProvisionedEndpoints, updateProvisionedQueries } from './provision/supabase.ts';
import { assertPortFree, prepareDataDir } from './startup.ts';
import { DATA_FORMAT, openDataDir, SAWMILL_VERSION } from './data-format.ts';
import type { CheckpointReport } from './warehouse/duckdb/adapter.ts';
import { checkpointLogLine, openDuckDb } from './warehouse/duckdb/open.ts';
import { libuvThreadpoolSize, queryConnections } from './warehouse/duckdb/reader-pool.ts';
import { openClickHouse } from './warehouse/clickhouse/open.ts';
import type { SqlDialect } from './sql/index.ts';
import type { Warehouse } from './warehouse/types.ts';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  /** Stop accepting, finish requests in flight, commit what was acknowledged, close storage. */
  close(): Promise<void>;
}

function logQueriesUpdated(log: Logger, updated: { changed: string[]; kept: string[] }, where: string): void {
  for (const name of updated.changed) log.info(`${where}: built-in endpoint ${name} has its new query`);
  for (const name of updated.kept) log.warn(`${where}: built-in endpoint ${name} was changed after it was provisioned and keeps its query; this version's is described in CHANGELOG.md`);
}

function logSandboxed(log: Logger, sandboxed: { changed: string[]; kept: string[] }, where: string): void {
  for (const name of sandboxed.changed) log.info(`${where}: built-in endpoint ${name} made sandboxable (Studio's Logs Explorer sends its own SQL to it)`);
  for (const name of sandboxed.kept) {
    log.warn(`${where}: built-in endpoint ${name} was changed after it was provisioned and is left not sandboxable; Studio's Logs Explorer needs it sandboxable (docs/supabase.md)`);
  }
}

/** Starts the service; everything it says goes to `log` (by default one made from the config). */
export async function startServer(config: Config, log: Logger = createLogger({ level: config.logLevel, format: config.logFormat })): Promise<RunningServer> {
  await assertPortFree(config.host, config.port);
  await prepareDataDir(config.dataDir);
  const foundFormat = await openDataDir(config.dataDir, (message) => log.info(message));
  const firstStart = !existsSync(join(config.dataDir, 'catalog.json'));

  // Several instances share a PostgreSQL catalog and a ClickHouse warehouse (docs/scale-out.md).
  const catalog = config.catalogUrl
    ? await PostgresCatalog.open({ url: config.catalogUrl, onError: (error) => log.error({ err: error }, 'shared catalog (PostgreSQL) failed') })
    : await FileCatalog.open(config.dataDir);
  // The journal's prepared file is room a full disk gives back before anything else starts.
  const journalDir = join(config.dataDir, 'journal');
  await SpareSegment.discardLeftover(journalDir);
  const onCheckpoint = (report: CheckpointReport) => {
    const { level, message } = checkpointLogLine(report);
    log[level](message);
  };
  const { warehouse: storage, dialect }: { warehouse: Warehouse; dialect: SqlDialect } =
    config.warehouse === 'clickhouse' ? await openClickHouse(config) : await openDuckDb(config, { log, onCheckpoint });
  let ready = false;
  // Where the warehouse can record how far a journal has been folded in (DuckDB), requests are
  // acknowledged from the journal; elsewhere (ClickHouse) from the warehouse commit.
  const opened = storage.committedPosition
    ? await Journal.open(journalDir, await storage.committedPosition(), {
        onDamage: (damage) => log.warn(`journal ${damage.file} was damaged at byte ${damage.offset}; cut there, original kept as ${damage.savedAs}`),
      })
    : undefined;
  let writer: EventWriter | undefined;
  const warehouse = new ReadAfterWrite(storage, () => writer!.readBarrier());
  writer = new EventWriter(warehouse, {
    maxQueuedEvents: config.maxQueuedEvents,
    commitIntervalMs: opened ? config.foldIntervalMs : config.commitIntervalMs,
    ...(opened ? { visibilityMs: config.visibilityMs, maxEventsPerCommit: config.maxEventsPerFold } : {}),
    maxFieldsPerSource: config.maxFieldsPerSource,
    journal: opened?.journal,
    onCommitError: (error, sourceIds) => app.log.error({ err: error, sources: sourceIds }, 'commit failed'),
    onQuarantined: (path, sourceId) => app.log.error({ source: sourceId, file: path }, 'events the warehouse kept refusing were set aside'),
    onFolded: (events, seconds) => {
      metrics.foldEvents.observe(events);
      metrics.foldSeconds.observe(seconds);
    },
    onVisible: (lagSeconds) => metrics.visibilityLag.observe(lagSeconds),
  });
  const endpoints = new EndpointService(catalog, warehouse, dialect, {
    queryTimeoutMs: config.queryTimeoutMs,
    cacheMaxBytes: config.cacheMaxBytes,
    visible: () => writer.visible(),
    readBarrier: () => writer.readBarrier(),
    onPromotionFailed: (error, sourceId) => app.log.warn({ err: error, source: sourceId }, 'keeping copies of what an endpoint reads failed: it reads the nested fields instead'),
  });
  const metrics = new SawmillMetrics({ writer, endpoints, storage, dataDir: config.dataDir, maxQueuedEvents: config.maxQueuedEvents });
  const inForce = await keysInForce(config);
  for (const line of inForce.sources) log.info(line);
  const keys = new KeyRing(catalog, { privateKeyHash: inForce.privateKeyHash, ingestKeyHash: inForce.ingestKeyHash });
  // Queries the warehouse runs at once: DuckDB's readers (as many as the threadpool leaves), or as configured.
  const querySlots = config.warehouse === 'duckdb' ? queryConnections(config.queryConcurrency, libuvThreadpoolSize()) : config.queryConcurrency;
  const fairness = new QueryFairness({
    perCaller: config.callerConcurrency,
    ratePerSecond: config.callerQueryRate,
    anonymousSlots: Math.max(1, querySlots - 1),
    anonymousQueue: config.queryQueue,
  });
  const services: Services = { catalog, keys, warehouse, writer, endpoints, dialect, dataDir: config.dataDir, metrics, fairness, queryTimeoutMs: config.queryTimeoutMs, limits: { maxBodyBytes: config.maxBodyBytes, request: requestLimits(config.maxBodyBytes, config.maxEventsPerRequest), tailsPerCaller: config.callerTails }, sourceDefaults: { retentionDays: config.defaultRetentionDays }, isReady: () => ready,
    problems: () => [...writer.problems(), ...(storage.problem?.() ? [storage.problem()!] : [])],
  };
  const app: FastifyInstance = await buildApp(services, {
    log,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    maxHeaderBytes: config.maxHeaderBytes,
  });

  // A crash between creating a source and its storage leaves the catalog ahead: catch up.
  for (const source of catalog.listSources()) await warehouse.createSource(source.token);
  if (opened) {
    writer.recover(opened.unfolded);
    await writer.flush();
    // On a full disk the service starts anyway: queries answer, and the folds are tried again.
    for (const problem of writer.problems()) log.error(`starting degraded: ${problem}`);
  }
  const provision = () => provisionSupabase(DEFAULT_OWNER_ID, catalog, warehouse, endpoints, { retentionDays: config.defaultRetentionDays });
  if (catalog instanceof PostgresCatalog) {
    // One instance provisions a new deployment; an endpoint changed elsewhere drops its cache here.
    await catalog.once('supabase-provisioned', provision);
    // A shared catalog has no data-dir format: each upgrade step runs once per deployment.
    await catalog.once('supabase-endpoints-sandboxable', async () => logSandboxed(log, await sandboxProvisionedEndpoints(DEFAULT_OWNER_ID, catalog, endpoints, 0), 'shared catalog'));
    await catalog.once('supabase-combined-stats-resources', async () =>
      logQueriesUpdated(log, await updateProvisionedQueries(DEFAULT_OWNER_ID, catalog, warehouse, endpoints, 3), 'shared catalog'),
    );
    catalog.onChange((kind, id) => kind === 'endpoint' && endpoints.invalidate(id));
  } else if (firstStart) await provision();
  else if (foundFormat < DATA_FORMAT.format) {
    // Sources widen first: an endpoint added below may read the new fields.
    logQueriesUpdated(log, await updateProvisionedQueries(DEFAULT_OWNER_ID, catalog, warehouse, endpoints, foundFormat), `data dir ${config.dataDir}`);
    for (const name of await provisionAddedEndpoints(DEFAULT_OWNER_ID, catalog, endpoints, foundFormat)) log.info(`data dir ${config.dataDir}: built-in endpoint ${name} added`);
    logSandboxed(log, await sandboxProvisionedEndpoints(DEFAULT_OWNER_ID, catalog, endpoints, foundFormat), `data dir ${config.dataDir}`);
  }

  // Fastify's own line ("Server listening at …", one per address) is the one that says so, in our words.
  await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `Sawmill ${SAWMILL_VERSION} listening on ${address}` });
  ready = true;
  // Promoting what saved endpoints read backfills stored events (seconds per million): not worth
  // holding the start for. Queries are correct meanwhile, only not yet faster.
  void endpoints.promoteSaved().catch((error: unknown) => app.log.error({ err: error }, 'promoting saved endpoints failed'));
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      ready = false;
      await app.close();
      await writer.flush();
      writer.stop();
      await opened?.journal.close();
      endpoints.stop();
      await warehouse.close();
      if (catalog instanceof PostgresCatalog) await catalog.close();
    })());
  return { app, services, url: `http://${config.host}:${port}`, close };
}
