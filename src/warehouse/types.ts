/**
 * The warehouse boundary. Everything above it (pipeline, endpoints) speaks in these engine-neutral
 * types; each engine folder (duckdb/, later clickhouse/) maps them to its own storage and SQL.
 */

/** JSON as it arrives, after key sanitisation and null removal. */
export type JsonValue = string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

/**
 * The type of one stored field, BigQuery-shaped: objects are repeated records (a one-element list
 * for a single object), arrays of scalars are repeated scalars, and anything that cannot be typed
 * consistently is widened to a string holding its JSON text.
 */
export type FieldType =
  | { kind: 'bool' }
  | { kind: 'int' }
  | { kind: 'float' }
  | { kind: 'string' }
  | { kind: 'timestamp' }
  | { kind: 'list'; element: ScalarType }
  | { kind: 'record'; fields: RecordFields };

export type ScalarType = Extract<FieldType, { kind: 'bool' | 'int' | 'float' | 'string' | 'timestamp' }>;
/** Field name → type, in first-seen order. */
export type RecordFields = ReadonlyMap<string, FieldType>;

/** The columns every source table has, whatever its events carry. */
export const FIXED_COLUMNS = ['id', 'timestamp', 'event_message'] as const;

/**
 * A top-level string field holding, as a JSON object keyed by path, the values that could not get
 * a typed column of their own: new fields past a source's field limit, and values whose shape
 * would have turned a record or list column into text. See `planRows` in schema.ts.
 */
export const OVERFLOW_FIELD = '_overflow';

/** One event ready to store: fixed columns plus every other top-level field (metadata included). */
export interface LogRow {
  id: string;
  /** Microseconds since the Unix epoch, UTC. */
  timestamp: number;
  event_message: string;
  fields: { [key: string]: JsonValue };
}

/**
 * What a source's saved queries read through UNNEST chains, as lower-case dot-joined paths:
 * `records` are the unnested list-of-record paths (`metadata`, `metadata.request`), `leaves` the
 * scalar fields read from their elements (`metadata.request.path`).
 */
export interface NestedReads {
  records: string[];
  leaves: string[];
}

/**
 * Rows already serialised for loading (see staged-rows.ts): NDJSON, one line per row, fields
 * shaped to the columns of `fields`.
 */
export interface StagedRows {
  /** The lines, separated by `\n`, no trailing newline. */
  lines: Buffer;
  count: number;
  /** Upper bound of the longest line in bytes. */
  maxLineBytes: number;
  /** The schema the lines were shaped for; unknown (absent) for lines read back from a journal. */
  fields?: RecordFields;
}

/** What one commit stores into one source. */
export interface AppendBatch {
  sourceId: string;
  /** The schema to widen to first; holds `rows` and (after shaping again if need be) `staged`. */
  schema: RecordFields;
  rows: LogRow[];
  /** Rows staged when they were acknowledged; only for warehouses with `stage`. */
  staged?: StagedRows[];
}

/** A row as the warehouse returns it, already in the wire shape of query results. */
export type ResultRow = Record<string, unknown>;

export interface QueryOptions {
  /** Cancel the query after this many milliseconds. */
  timeoutMs: number;
  /** Stop reading after this many rows. */
  maxRows: number;
}

export interface Warehouse {
  readonly engine: string;
  /** Create storage for a new source (idempotent). */
  createSource(sourceId: string): Promise<void>;
  dropSource(sourceId: string): Promise<void>;
  /** Keep a source's events `days` days (null: forever), where the engine enforces it (ClickHouse TTL). */
  setRetention?(sourceId: string, days: number | null): Promise<void>;
  /** The current top-level schema of a source, fixed columns excluded. */
  schema(sourceId: string): RecordFields;
  /**
   * Store rows durably in one commit: widen the schema to `schema` first (a superset of the
   * current one, as produced by the pipeline), then append. Resolves once the commit is on disk.
   */
  append(batches: ReadonlyArray<AppendBatch>, position?: number): Promise<void>;
  /**
   * Engines that load staged lines serialise rows that fit the source's current schema here, at
   * acknowledgement (undefined when one does not fit), and take them back in `append`'s `staged`.
   * Staged rows may be reshaped in place: the caller gives them away.
   */
  stage?(sourceId: string, rows: readonly LogRow[]): StagedRows | undefined;
  /**
   * Engines that can keep it store `position` (how far an upstream journal has been folded in)
   * in the same transaction as the rows; this returns the last one stored, 0 if none. Present
   * only where that is atomic, which is what lets the pipeline acknowledge from its journal.
   */
  committedPosition?(): Promise<number>;
  /**
   * Engines that decode a nested column as a whole (DuckDB) keep typed copies of what saved
   * queries read through UNNEST chains; `reads` is all that a source's saved queries read now.
   */
  promote?(sourceId: string, reads: NestedReads): Promise<void>;
  /**
   * Changes whenever SQL translated for this warehouse could now come out different (DuckDB:
   * promoted columns became usable), so that cached translations are made again.
   */
  translationEpoch?(): number;
  /**
   * Engines stored in the data dir (DuckDB) copy their files into `dir` consistently: no commit
   * runs during the copy. Returns the names of the files written.
   */
  backup?(dir: string): Promise<string[]>;
  /** Run SQL already generated for this engine, with named string parameters. */
  query(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<ResultRow[]>;
  /** The rows `query` returns, as the text of a JSON array: for replies that only pass them on. */
  queryJson(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<string>;
  /** The SQL relation name that holds a source's events, for the translator. */
  relation(sourceId: string): string;
  /** Why the warehouse cannot store or read right now (a full disk, an engine reopening, checkpoints failing), if it cannot. */
  problem?(): string | undefined;
  /** Engines with a write-ahead log of their own (DuckDB): checkpoints since the start, by outcome. */
  checkpoints?(): { ok: number; failed: number };
  close(): Promise<void>;
}
