/**
 * Sawmill's own figures, rendered in the Prometheus text exposition format (version 0.0.4).
 * The format is a few lines of text per series, so it is written here rather than pulled in with
 * a client library: Sawmill needs counters, gauges read at scrape time and fixed-bucket
 * histograms, nothing else (no default process collectors, no push gateway).
 */

export type Labels = Record<string, string>;

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  render(): string[];
}

const escapeLabel = (value: string) => value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"');

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels);
  if (extra) pairs.push(extra);
  return pairs.length === 0 ? '' : `{${pairs.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(',')}}`;
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Series of one family, keyed by their labels in a fixed order. */
class Series<T> {
  private readonly entries = new Map<string, { labels: Labels; value: T }>();
  /** The same entries by the labels in the order a caller passes them: sorting and stringifying on every count cost ~5 µs a request. */
  private readonly asPassed = new Map<string, { labels: Labels; value: T }>();
  constructor(private readonly create: () => T) {}

  get(labels: Labels): T {
    let passed = '';
    for (const name in labels) passed += `${name.length}:${name}${labels[name]!.length}:${labels[name]}`;
    let entry = this.asPassed.get(passed);
    if (!entry) {
      const key = JSON.stringify(Object.entries(labels).sort());
      entry = this.entries.get(key) ?? { labels, value: this.create() };
      this.entries.set(key, entry);
      this.asPassed.set(passed, entry);
    }
    return entry.value;
  }

  all(): Array<{ labels: Labels; value: T }> {
    return [...this.entries.values()];
  }
}

export class Counter implements Family {
  readonly type = 'counter';
  private readonly series = new Series(() => ({ total: 0 }));
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    this.series.get(labels).total += by;
  }

  render(): string[] {
    return this.series.all().map(({ labels, value }) => `${this.name}${labelText(labels)} ${numberText(value.total)}`);
  }
}

/** A value read when scraped (queue depth, file size), or a counter kept elsewhere. */
export class Observed implements Family {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    private readonly read: () => Array<{ labels?: Labels; value: number }>,
  ) {}

  render(): string[] {
    return this.read().map(({ labels, value }) => `${this.name}${labelText(labels ?? {})} ${numberText(value)}`);
  }
}

export class Histogram implements Family {
  readonly type = 'histogram';
  private readonly series: Series<{ counts: number[]; sum: number; count: number }>;
  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds, ascending; +Inf is implied. */
    readonly buckets: readonly number[],
  ) {
    this.series = new Series(() => ({ counts: buckets.map(() => 0), sum: 0, count: 0 }));
  }

  observe(value: number, labels: Labels = {}): void {
    const entry = this.series.get(labels);
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) entry.counts[i]!++;
    entry.sum += value;
    entry.count++;
  }

  render(): string[] {
    return this.series.all().flatMap(({ labels, value }) => [
      ...this.buckets.map((bound, i) => `${this.name}_bucket${labelText(labels, ['le', numberText(bound)])} ${value.counts[i]}`),
      `${this.name}_bucket${labelText(labels, ['le', '+Inf'])} ${value.count}`,
      `${this.name}_sum${labelText(labels)} ${numberText(value.sum)}`,
      `${this.name}_count${labelText(labels)} ${value.count}`,
    ]);
  }
}

export class Registry {
  private readonly families: Family[] = [];
  /** Figures that need I/O to read (DuckDB's memory, file sizes), refreshed before each scrape. */
  private readonly refreshers: Array<() => Promise<void>> = [];

  add<T extends Family>(family: T): T {
    this.families.push(family);
    return family;
  }

  beforeScrape(refresh: () => Promise<void>): void {
    this.refreshers.push(refresh);
  }

  async render(): Promise<string> {
    await Promise.all(this.refreshers.map((refresh) => refresh().catch(() => undefined)));
    const lines: string[] = [];
    for (const family of this.families) {
      const samples = family.render();
      if (samples.length === 0) continue;
      lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`, ...samples);
    }
    return `${lines.join('\n')}\n`;
  }
}

/** Seconds: from a fraction of a millisecond (a cached endpoint) to a minute (a query at its deadline). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Events per fold: one request's worth to the writer's largest commit. */
export const FOLD_SIZE_BUCKETS = [1, 10, 100, 1_000, 10_000, 50_000];
