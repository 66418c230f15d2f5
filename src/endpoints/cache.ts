import type { ResultRow } from '../warehouse/types.ts';

interface Entry {
  rows: ResultRow[];
  bytes: number;
  expiresAt: number;
  /** What it takes to run the query again, for warming. */
  refresh: () => Promise<ResultRow[]>;
}

/**
 * Endpoint results per (endpoint, exact parameters), least recently used evicted first, bounded by
 * total size. Entries of an endpoint are dropped together when the endpoint changes.
 */
export class ResultCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  static key(endpointId: number, params: Record<string, string | null>): string {
    const sorted = Object.keys(params).sort().map((name) => [name, params[name]]);
    return `${endpointId}:${JSON.stringify(sorted)}`;
  }

  get(key: string, now = Date.now()): ResultRow[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.remove(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.rows;
  }

  set(key: string, rows: ResultRow[], ttlMs: number, refresh: () => Promise<ResultRow[]>): void {
    const bytes = JSON.stringify(rows).length;
    if (bytes > this.maxBytes) return;
    this.remove(key);
    this.entries.set(key, { rows, bytes, expiresAt: Date.now() + ttlMs, refresh });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  dropEndpoint(endpointId: number): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${endpointId}:`)) this.remove(key);
  }

  /** Run every live entry of an endpoint again and store the fresh rows; failures keep the old ones. */
  async warm(endpointId: number, ttlMs: number): Promise<void> {
    for (const [key, entry] of [...this.entries]) {
      if (!key.startsWith(`${endpointId}:`) || entry.expiresAt <= Date.now()) continue;
      const rows = await entry.refresh().catch(() => undefined);
      if (rows && this.entries.has(key)) this.set(key, rows, ttlMs, entry.refresh);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}
