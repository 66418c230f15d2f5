import { ByteLru, digestKey, stringBytes } from './byte-lru.ts';

interface Entry {
  /** The reply body, serialised once: a hit costs no serialisation. */
  body: string;
  expiresAt: number;
  /** What it takes to run the query again, for warming endpoints only (it holds the parameters). */
  refresh?: () => Promise<string>;
  /** Bytes `refresh` keeps alive: the parameter values and the SQL. */
  retained: number;
}

/** Fixed cost of an entry besides its strings: the map's slot, the entry object, the closure. */
const ENTRY_OVERHEAD_BYTES = 256;
/** How often expired entries are dropped, read or not. */
const SWEEP_INTERVAL_MS = 10_000;

/**
 * Endpoint results per (endpoint, exact parameters), least recently used evicted first, bounded
 * by the bytes of everything an entry holds: its key (a digest, whatever the parameters' size),
 * its reply and, for warming endpoints, the parameters kept to run it again. Expired entries are
 * swept every 10 s. Entries of an endpoint are dropped together when the endpoint changes.
 */
export class ResultCache {
  private readonly entries: ByteLru<Entry>;
  private readonly sweeper: NodeJS.Timeout;

  constructor(maxBytes: number) {
    this.entries = new ByteLru(maxBytes);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  static key(endpointId: number, params: Record<string, string | null>): string {
    const sorted = Object.keys(params).sort().map((name) => [name, params[name]]);
    return `${endpointId}:${digestKey(JSON.stringify(sorted))}`;
  }

  get(key: string, now = Date.now()): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.body;
  }

  set(key: string, body: string, ttlMs: number, refresh?: { run: () => Promise<string>; retainedBytes: number }): void {
    const retained = refresh?.retainedBytes ?? 0;
    const entry: Entry = { body, expiresAt: Date.now() + ttlMs, retained, ...(refresh ? { refresh: refresh.run } : {}) };
    this.entries.set(key, entry, stringBytes(body) + retained + ENTRY_OVERHEAD_BYTES);
  }

  dropEndpoint(endpointId: number): void {
    for (const [key] of this.entries) if (key.startsWith(`${endpointId}:`)) this.entries.delete(key);
  }

  /** Run every live entry of an endpoint again and store the fresh rows; failures keep the old ones. */
  async warm(endpointId: number, ttlMs: number): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(`${endpointId}:`) || entry.expiresAt <= Date.now() || !entry.refresh) continue;
      const body = await entry.refresh().catch(() => undefined);
      if (body !== undefined && this.entries.get(key)) this.set(key, body, ttlMs, { run: entry.refresh, retainedBytes: entry.retained });
    }
  }

  /** Drop every expired entry. */
  sweep(now = Date.now()): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held, as counted against the bound. */
  get bytes(): number {
    return this.entries.bytes;
  }
}
