interface Entry {
  /** The reply body, serialised once: a hit costs no serialisation. */
  body: string;
  expiresAt: number;
  /** What it takes to run the query again, for warming. */
  refresh: () => Promise<string>;
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

  get(key: string, now = Date.now()): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.remove(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.body;
  }

  set(key: string, body: string, ttlMs: number, refresh: () => Promise<string>): void {
    if (body.length > this.maxBytes) return;
    this.remove(key);
    this.entries.set(key, { body, expiresAt: Date.now() + ttlMs, refresh });
    this.bytes += body.length;
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
      const body = await entry.refresh().catch(() => undefined);
      if (body !== undefined && this.entries.has(key)) this.set(key, body, ttlMs, entry.refresh);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.body.length;
    this.entries.delete(key);
  }
}
