import type { KeyRing } from '../catalog/access.ts';
import type { Catalog } from '../catalog/types.ts';
import type { EndpointService } from '../endpoints/service.ts';
import type { RequestLimits } from '../ingest/request-limits.ts';
import type { SawmillMetrics } from '../monitoring.ts';
import type { EventWriter } from '../pipeline/writer.ts';
import type { SqlDialect } from '../sql/index.ts';
import type { QueryFairness } from './fairness.ts';
import type { Warehouse } from '../warehouse/types.ts';

/** What the HTTP layer is handed by start-up wiring. */
export interface Services {
  catalog: Catalog;
  keys: KeyRing;
  warehouse: Warehouse;
  writer: EventWriter;
  endpoints: EndpointService;
  /** The warehouse's SQL printer, for queries other than endpoints (the log explorer). */
  dialect: SqlDialect;
  /** Where this instance keeps its files (backups copy from it). */
  dataDir: string;
  /** Each caller's share of the query slots; the private key is not limited. */
  fairness: QueryFairness;
  /** How long a query may wait for its turn (SAWMILL_QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
  /** Self-monitoring figures (/metrics). */
  metrics: SawmillMetrics;
  /** `tailsPerCaller`: live tails one key (or address) may hold open at once (SAWMILL_CALLER_TAILS). */
  limits: { maxBodyBytes: number; request: RequestLimits; tailsPerCaller: number };
  /** What a new source gets when its creator does not say (SAWMILL_DEFAULT_RETENTION_DAYS). */
  sourceDefaults: { retentionDays: number | null };
  /** False until the service accepts traffic and again once it is shutting down. */
  isReady: () => boolean;
  /** What keeps the service from storing events now (a full disk, say), for /health; empty when nothing. */
  problems: () => string[];
}
