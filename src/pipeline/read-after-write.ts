import type { AppendBatch, LogRow, NestedReads, QueryOptions, RecordFields, ResultRow, StagedRows, Warehouse } from '../warehouse/types.ts';

/**
 * The warehouse as readers see it: while the writer has little to fold, a query first waits until
 * every event acknowledged before it started has been folded in from the journal, so a caller
 * reads what it was just told is stored; under load it reads what is folded, and the rest within
 * the visibility bound (EventWriter.readBarrier). Without a journal acknowledged events are already
 * in the warehouse and this costs nothing.
 */
export class ReadAfterWrite implements Warehouse {
  readonly engine: string;
  readonly setRetention?: (sourceId: string, days: number | null) => Promise<void>;
  readonly promote?: (sourceId: string, reads: NestedReads) => Promise<void>;
  readonly translationEpoch?: () => number;
  readonly stage?: (sourceId: string, rows: readonly LogRow[]) => StagedRows | undefined;
  readonly backup?: (dir: string) => Promise<string[]>;

  constructor(
    private readonly warehouse: Warehouse,
    /** Resolves when a query may run (EventWriter.readBarrier). */
    private readonly acknowledgedVisible: () => Promise<void>,
  ) {
    this.engine = warehouse.engine;
    if (warehouse.setRetention) this.setRetention = warehouse.setRetention.bind(warehouse);
    if (warehouse.promote) this.promote = warehouse.promote.bind(warehouse);
    if (warehouse.translationEpoch) this.translationEpoch = warehouse.translationEpoch.bind(warehouse);
    if (warehouse.stage) this.stage = warehouse.stage.bind(warehouse);
    if (warehouse.backup) this.backup = warehouse.backup.bind(warehouse);
  }

  async query(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<ResultRow[]> {
    await this.acknowledgedVisible();
    return this.warehouse.query(sql, params, options);
  }

  async queryJson(sql: string, params: Record<string, string | null>, options: QueryOptions): Promise<string> {
    await this.acknowledgedVisible();
    return this.warehouse.queryJson(sql, params, options);
  }

  createSource(sourceId: string): Promise<void> {
    return this.warehouse.createSource(sourceId);
  }

  dropSource(sourceId: string): Promise<void> {
    return this.warehouse.dropSource(sourceId);
  }

  schema(sourceId: string): RecordFields {
    return this.warehouse.schema(sourceId);
  }

  relation(sourceId: string): string {
    return this.warehouse.relation(sourceId);
  }

  append(batches: ReadonlyArray<AppendBatch>, position?: number): Promise<void> {
    return this.warehouse.append(batches, position);
  }

  close(): Promise<void> {
    return this.warehouse.close();
  }
}
