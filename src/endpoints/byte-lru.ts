import { createHash } from 'node:crypto';

/**
 * A map bounded by the bytes of what it holds, keys included, least recently used dropped first.
 * Sizes are in UTF-16 code units times two: what V8 takes for a string at most.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private held = 0;

  constructor(
    readonly maxBytes: number,
    private readonly maxEntries = Infinity,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keep `value`, which holds `bytes` besides its key; nothing is kept when it alone is over the bound. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    const total = stringBytes(key) + bytes;
    if (total > this.maxBytes) return;
    this.entries.set(key, { value, bytes: total });
    this.held += total;
    for (const oldest of this.entries.keys()) {
      if (this.held <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.held -= entry.bytes;
    this.entries.delete(key);
  }

  /** Every entry, oldest first; deleting while iterating is safe. */
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const [key, entry] of [...this.entries]) yield [key, entry.value];
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.held;
  }
}

export const stringBytes = (text: string) => text.length * 2;

/** A fixed-size name for a key made of caller-supplied text (parameters, `sql`) of any length. */
export const digestKey = (text: string) => createHash('sha256').update(text).digest('base64url');
