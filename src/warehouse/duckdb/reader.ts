import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResultReader } from '@duckdb/node-api';

/** Statements kept per reader connection, least recently used dropped first (explorer SQL varies freely). */
const KEPT_STATEMENTS = 64;

/**
 * A reader connection and the statements prepared on it, kept by SQL text: endpoints run the same
 * translated SQL again and again with new parameter values, and DuckDB takes 1.2-1.7 ms to
 * prepare each built-in (a tenth of logs.all at 1M events). A kept statement stays correct when
 * the tables or views it reads change (a widened layout, a new segment, a dropped promotion):
 * DuckDB binds it again by itself, new columns and types included.
 */
export class Reader {
  private readonly statements = new Map<string, DuckDBPreparedStatement>();
  /** A result read only up to its row limit: its transaction stays open until the connection runs something else. */
  private unfinished = false;
  private closer: DuckDBPreparedStatement | undefined;

  constructor(readonly connection: DuckDBConnection) {}

  async streamAndReadUntil(sql: string, maxRows: number, params: Record<string, string | null>): Promise<DuckDBResultReader> {
    const statement = await this.prepared(sql);
    try {
      // Cleared first: a parameter this call leaves out must fail, not keep the last caller's value.
      statement.clearBindings();
      statement.bind(params);
      this.unfinished = true;
      const result = await statement.streamAndReadUntil(maxRows);
      this.unfinished = !result.done;
      return result;
    } catch (error) {
      this.forget(sql);
      throw error;
    }
  }

  /**
   * End the transaction of a result that was read only up to its row limit (its rows stay
   * readable). Left open, that transaction keeps every catalog change committed after it began
   * (a retention comment, a widened table) from being cleaned up, and CHECKPOINT is refused
   * ("other write transactions active") for as long as this reader stays idle: a console poll
   * followed by a retention change stopped backups and the WAL's folding until a restart.
   */
  async finish(): Promise<void> {
    if (!this.unfinished) return;
    this.closer ??= await this.connection.prepare('SELECT 1');
    await this.closer.run();
    this.unfinished = false;
  }

  close(): void {
    this.closer?.destroySync();
    for (const sql of [...this.statements.keys()]) this.forget(sql);
    this.connection.closeSync();
  }

  private async prepared(sql: string): Promise<DuckDBPreparedStatement> {
    const kept = this.statements.get(sql);
    if (kept) {
      this.statements.delete(sql);
      this.statements.set(sql, kept);
      return kept;
    }
    const statement = await this.connection.prepare(sql);
    this.statements.set(sql, statement);
    if (this.statements.size > KEPT_STATEMENTS) this.forget(this.statements.keys().next().value!);
    return statement;
  }

  private forget(sql: string): void {
    this.statements.get(sql)?.destroySync();
    this.statements.delete(sql);
  }
}
