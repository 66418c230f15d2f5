import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { BreakableName, ErrorBox } from '../components/common.tsx';
import { countText } from '../format.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (what /metrics serves): comments skipped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1]!, pair[2]!.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c))]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const matching = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) => matching(samples, name, labels).reduce((sum, sample) => sum + sample.value, 0);
const distinct = (samples: Sample[], name: string, label: string) => [...new Set(matching(samples, name).map((sample) => sample.labels[label] ?? ''))].sort();

/** The bucket bound below which a share `q` of a histogram's observations fall: an upper bound of the quantile. */
function quantileBound(samples: Sample[], name: string, q: number, labels: Record<string, string> = {}): number | undefined {
  const buckets = new Map<string, number>();
  for (const sample of matching(samples, `${name}_bucket`, labels)) buckets.set(sample.labels.le!, (buckets.get(sample.labels.le!) ?? 0) + sample.value);
  const ordered = [...buckets].map(([le, count]) => [Number(le === '+Inf' ? Infinity : le), count] as const).sort((a, b) => a[0] - b[0]);
  const count = ordered.at(-1)?.[1] ?? 0;
  if (count === 0) return undefined;
  return ordered.find(([, cumulative]) => cumulative >= q * count)?.[0];
}

const seconds = (value: number | undefined) => (value === undefined ? '—' : value === Infinity ? '> 60 s' : value < 1 ? `${Math.round(value * 1000)} ms` : `${value} s`);
const bytes = (value: number) => (value >= 1 << 30 ? `${(value / (1 << 30)).toFixed(1)} GB` : value >= 1 << 20 ? `${(value / (1 << 20)).toFixed(1)} MB` : `${Math.round(value / 1024)} kB`);
const mean = (samples: Sample[], name: string, labels: Record<string, string> = {}) => {
  const count = total(samples, `${name}_count`, labels);
  return count === 0 ? undefined : total(samples, `${name}_sum`, labels) / count;
};

/** The service's own figures, read from /metrics every few seconds. */
export function Status() {
  const [samples, setSamples] = useState<Sample[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = () =>
      api<string>('GET', '/metrics').then(
        (text) => {
          setSamples(parseMetrics(text));
          setError(null);
        },
        (caught: Error) => setError(caught.message),
      );
    void load();
    const timer = setInterval(load, 5_000);
    return () => clearInterval(timer);
  }, []);
  if (!samples) return error ? <ErrorBox error={error} /> : <p class="muted">Loading…</p>;

  const figure = (label: string, value: string) => (
    <tr key={label}>
      <th>{label}</th>
      <td class="num">{value}</td>
    </tr>
  );
  const sources = distinct(samples, 'sawmill_ingest_events_total', 'source');
  const endpoints = distinct(samples, 'sawmill_endpoint_request_duration_seconds_count', 'endpoint');
  const hits = total(samples, 'sawmill_endpoint_cache_requests_total', { result: 'hit' });
  const runs = hits + total(samples, 'sawmill_endpoint_cache_requests_total', { result: 'miss' });
  return (
    <section class="status-page" data-testid="status">
      <div class="page-head">
        <h2>Status</h2>
        <span class="muted">from /metrics, every 5 s</span>
      </div>
      <ErrorBox error={error} />
      <div class="table-scroll">
        <table class="grid" data-testid="status-figures">
          <tbody>
            {figure('Queue', `${countText(total(samples, 'sawmill_queue_events'))} of ${countText(total(samples, 'sawmill_queue_capacity_events'))} events`)}
            {figure('Folds', `${countText(total(samples, 'sawmill_fold_duration_seconds_count'))}, mean ${seconds(mean(samples, 'sawmill_fold_duration_seconds'))}, mean ${countText(Math.round(mean(samples, 'sawmill_fold_events') ?? 0))} events`)}
            {figure('Visibility lag (95% within)', seconds(quantileBound(samples, 'sawmill_visibility_lag_seconds', 0.95)))}
            {figure('Endpoint cache hits', runs === 0 ? '—' : `${countText(hits)} of ${countText(runs)}`)}
            {figure('DuckDB memory', bytes(total(samples, 'sawmill_warehouse_memory_bytes')))}
            {figure('DuckDB file', bytes(total(samples, 'sawmill_data_file_bytes')))}
            {figure('Process memory (RSS)', bytes(total(samples, 'sawmill_process_resident_memory_bytes')))}
          </tbody>
        </table>
      </div>
      <h3>Ingestion</h3>
      <div class="table-scroll">
        <table class="grid" data-testid="status-ingest">
          <thead>
            <tr>
              <th>source</th>
              <th class="num">accepted</th>
              <th class="num">rejected</th>
              <th class="num">requests</th>
              <th class="num">refused requests</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((source) => {
              const requests = matching(samples, 'sawmill_ingest_requests_total', { source });
              const refused = requests.filter((sample) => !sample.labels.status?.startsWith('2')).reduce((sum, sample) => sum + sample.value, 0);
              return (
                <tr key={source}>
                  <td>
                    <BreakableName name={source} />
                  </td>
                  <td class="num">{countText(total(samples, 'sawmill_ingest_events_total', { source, outcome: 'accepted' }))}</td>
                  <td class="num">{countText(total(samples, 'sawmill_ingest_events_total', { source, outcome: 'rejected' }))}</td>
                  <td class="num">{countText(requests.reduce((sum, sample) => sum + sample.value, 0))}</td>
                  <td class="num">{countText(refused)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h3>Endpoints</h3>
      <div class="table-scroll">
        <table class="grid" data-testid="status-endpoints">
          <thead>
            <tr>
              <th>endpoint</th>
              <th class="num">requests</th>
              <th class="num">mean</th>
              <th class="num">95% within</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint) => (
              <tr key={endpoint}>
                <td>{endpoint ? <BreakableName name={endpoint} /> : '(not found)'}</td>
                <td class="num">{countText(total(samples, 'sawmill_endpoint_request_duration_seconds_count', { endpoint }))}</td>
                <td class="num">{seconds(mean(samples, 'sawmill_endpoint_request_duration_seconds', { endpoint }))}</td>
                <td class="num">{seconds(quantileBound(samples, 'sawmill_endpoint_request_duration_seconds', 0.95, { endpoint }))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
