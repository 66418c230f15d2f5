import { useEffect, useState } from 'preact/hooks';
import { api, isTransient, query, type LogEvent } from '../api.ts';
import { VolumeChart } from '../components/charts.tsx';
import { ErrorBox, JsonView } from '../components/common.tsx';
import { zoneText } from '../chart-data.ts';
import { eventAsSent, levelClass, levelOf } from '../event-view.ts';
import { cellText, timeText } from '../format.ts';

const RANGES = [
  ['5m', 'Last 5 minutes', 5 * 60],
  ['15m', 'Last 15 minutes', 15 * 60],
  ['1h', 'Last hour', 3600],
  ['6h', 'Last 6 hours', 6 * 3600],
  ['24h', 'Last 24 hours', 86400],
  ['7d', 'Last 7 days', 7 * 86400],
  ['30d', 'Last 30 days', 30 * 86400],
  ['custom', 'Custom range', 0],
] as const;
type RangeId = (typeof RANGES)[number][0];

const PAGE_SIZE = 50;
export const LQL_EXAMPLE = 'error m.response.status_code:>=500 m.request.path:~"/rest"';

/** `<input type="datetime-local">` speaks local time without a zone. */
const toLocalInput = (millis: number) => {
  const date = new Date(millis - new Date(millis).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
};

interface Search {
  q: string;
  fromMillis: number;
  toMillis: number;
}

function resolveRange(range: RangeId, customFrom: string, customTo: string): { fromMillis: number; toMillis: number } {
  if (range === 'custom') {
    const fromMillis = Date.parse(customFrom);
    const toMillis = customTo ? Date.parse(customTo) : Date.now();
    return { fromMillis, toMillis };
  }
  const seconds = RANGES.find(([id]) => id === range)![2];
  const toMillis = Date.now();
  return { fromMillis: toMillis - seconds * 1000, toMillis };
}

/**
 * The search in the page's address (#/sources/<token>/explore?q=…&range=1h, or &from=…&to=… in
 * ISO 8601 for a custom range), so a search can be bookmarked and shared.
 */
function searchFromAddress(): { q: string; range: RangeId; from?: number; to?: number } {
  const params = new URLSearchParams(window.location.hash.split('?')[1] ?? '');
  const range = RANGES.find(([id]) => id === params.get('range'))?.[0] ?? '1h';
  const from = Date.parse(params.get('from') ?? '');
  const to = Date.parse(params.get('to') ?? '');
  if (range === 'custom' && !Number.isNaN(from)) return { q: params.get('q') ?? '', range, from, ...(Number.isNaN(to) ? {} : { to }) };
  return { q: params.get('q') ?? '', range: range === 'custom' ? '1h' : range };
}

function writeAddress(token: string, q: string, range: RangeId, search: Search) {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  params.set('range', range);
  if (range === 'custom') {
    params.set('from', new Date(search.fromMillis).toISOString());
    params.set('to', new Date(search.toMillis).toISOString());
  }
  // Replaced, not pushed: Back leaves the explorer rather than stepping through searches.
  window.history.replaceState(null, '', `#/sources/${encodeURIComponent(token)}/explore?${params}`);
}

/** Other top-level fields, shown as columns when they are short scalars (status, host, …). */
function extraColumns(events: LogEvent[]): string[] {
  const counts = new Map<string, number>();
  for (const event of events) {
    for (const [name, value] of Object.entries(event)) {
      // The level has a column of its own.
      if (name === 'id' || name === 'timestamp' || name === 'event_message' || name === 'level') continue;
      if (value === null || typeof value === 'object') continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([name]) => name);
}

/** `onLoaded` lets the page around it refresh the source's totals when new events show up here. */
export function Explorer({ token, onLoaded }: { token: string; onLoaded?: () => void }) {
  const [initial] = useState(searchFromAddress);
  const [range, setRange] = useState<RangeId>(initial.range);
  const [customFrom, setCustomFrom] = useState(() => toLocalInput(initial.from ?? Date.now() - 3600_000));
  const [customTo, setCustomTo] = useState(() => (initial.to === undefined ? '' : toLocalInput(initial.to)));
  const [text, setText] = useState(initial.q);
  const [search, setSearch] = useState<Search>(() =>
    initial.from === undefined ? { q: initial.q, ...resolveRange(initial.range, '', '') } : { q: initial.q, fromMillis: initial.from, toMillis: initial.to ?? Date.now() },
  );
  /** Cursors of the pages before the current one, so "Newer" can go back. */
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<{ events: LogEvent[]; next_before: string | null } | null>(null);
  const [volume, setVolume] = useState<{ bucket_seconds: number; buckets: Array<{ time: number; events: number }> } | null>(null);
  const [selected, setSelected] = useState<LogEvent | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  /** Bumped to ask again after the service did not answer (restarting): the page recovers by itself. */
  const [attempt, setAttempt] = useState(0);
  const cursor = cursors.at(-1);

  const filters = { q: search.q, from: new Date(search.fromMillis).toISOString(), to: new Date(search.toMillis).toISOString() };

  useEffect(() => {
    let current = true;
    setLoading(true);
    api<{ events: LogEvent[]; next_before: string | null }>('GET', `/api/sources/${token}/events${query({ ...filters, limit: PAGE_SIZE, before: cursor })}`)
      .then((result) => current && (setPage(result), setError(null), onLoaded?.()))
      .catch((caught: Error) => {
        if (!current) return;
        setError(caught.message);
        setPage(null);
        if (isTransient(caught)) retryTimer = setTimeout(() => setAttempt((count) => count + 1), 2000);
      })
      .finally(() => current && setLoading(false));
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    return () => {
      current = false;
      clearTimeout(retryTimer);
    };
  }, [token, search, cursor, attempt]);

  useEffect(() => {
    let current = true;
    api<NonNullable<typeof volume>>('GET', `/api/sources/${token}/volume${query({ ...filters, buckets: 80 })}`)
      .then((result) => current && setVolume(result))
      .catch(() => current && setVolume(null));
    return () => void (current = false);
  }, [token, search, attempt]);

  const runSearch = (next: Search, nextRange: RangeId) => {
    setSelected(null);
    setCursors([undefined]);
    setSearch(next);
    writeAddress(token, next.q, nextRange, next);
  };

  const submit = (event?: Event, overrides: { q?: string; range?: RangeId } = {}) => {
    event?.preventDefault();
    const chosen = overrides.range ?? range;
    const resolved = resolveRange(chosen, customFrom, customTo);
    if (Number.isNaN(resolved.fromMillis) || Number.isNaN(resolved.toMillis)) {
      setError('Pick a start and end time for the custom range.');
      return;
    }
    runSearch({ q: (overrides.q ?? text).trim(), ...resolved }, chosen);
  };

  /** Choosing a range is asking for it: the search runs at once (a custom range waits for its times). */
  const chooseRange = (chosen: RangeId) => {
    setRange(chosen);
    if (chosen !== 'custom') submit(undefined, { range: chosen });
  };

  /** A click on a field of the event JSON narrows the search to events with that value. */
  const addFilter = (clause: string) => {
    const q = text.trim() ? `${text.trim()} ${clause}` : clause;
    setText(q);
    submit(undefined, { q });
  };

  const zoom = (fromSeconds: number, toSeconds: number) => {
    setRange('custom');
    setCustomFrom(toLocalInput(fromSeconds * 1000));
    setCustomTo(toLocalInput(toSeconds * 1000));
    runSearch({ q: text.trim(), fromMillis: fromSeconds * 1000, toMillis: toSeconds * 1000 }, 'custom');
  };

  const events = page?.events ?? [];
  const columns = extraColumns(events);
  const levels = events.map(levelOf);
  const hasLevels = levels.some((level) => level !== undefined);
  const total = volume?.buckets.reduce((sum, bucket) => sum + bucket.events, 0);

  return (
    <div class="explorer">
      <form class="toolbar" onSubmit={submit}>
        <select name="range" value={range} onChange={(event) => chooseRange(event.currentTarget.value as RangeId)} aria-label="Time range">
          {RANGES.map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
        {range === 'custom' && (
          <>
            <input type="datetime-local" name="from" value={customFrom} onInput={(event) => setCustomFrom(event.currentTarget.value)} aria-label="From" />
            <input type="datetime-local" name="to" value={customTo} onInput={(event) => setCustomTo(event.currentTarget.value)} aria-label="To (empty: now)" />
          </>
        )}
        <input class="lql" name="q" placeholder={LQL_EXAMPLE} value={text} onInput={(event) => setText(event.currentTarget.value)} spellcheck={false} aria-label="Search" />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <p class="muted small-text hint">
        Words search the message; <code>level:error</code> (top level or metadata), <code>m.response.status_code:&gt;=500</code>, <code>m.request.path:~"^/rest"</code>,{' '}
        <code>m.ms:100..250</code>, <code>m.user_id:NULL</code>; <code>OR</code> and <code>( )</code> combine; a leading <code>-</code> negates. Drag across the chart to zoom.
      </p>
      <ErrorBox error={error} />
      {volume && (
        <div class="panel">
          <div class="panel-head muted small-text" data-testid="volume-summary">
            {total?.toLocaleString('en-US')} events · one bar per {volume.bucket_seconds >= 60 ? `${volume.bucket_seconds / 60} min` : `${volume.bucket_seconds} s`} · times in {zoneText()}
          </div>
          <VolumeChart buckets={volume.buckets} bucketSeconds={volume.bucket_seconds} onSelect={zoom} />
        </div>
      )}
      <div class={selected ? 'split' : ''}>
        <div class="panel">
          <table class="grid events" data-testid="events-table">
            <thead>
              <tr>
                <th class="time">Time</th>
                {hasLevels && <th>Level</th>}
                {columns.map((name) => (
                  <th key={name}>{name}</th>
                ))}
                <th>Message</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event, index) => (
                <tr key={event.id} class={selected?.id === event.id ? 'selected' : ''} onClick={() => setSelected(event)} data-testid="event-row">
                  <td class="time">{timeText(event.timestamp)}</td>
                  {hasLevels && (
                    <td class={`level ${levels[index] ? levelClass(levels[index]) : ''}`} data-testid="event-level">
                      {levels[index] ?? ''}
                    </td>
                  )}
                  {columns.map((name) => (
                    <td key={name} class={`field-${String(event[name]).toLowerCase()}`}>
                      {cellText(event[name])}
                    </td>
                  ))}
                  <td class="message">{event.event_message}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!loading && events.length === 0 && !error && <p class="muted empty">No events match in this range.</p>}
          <div class="pager">
            <button type="button" disabled={cursors.length <= 1 || loading} onClick={() => setCursors(cursors.slice(0, -1))}>
              ← Newer
            </button>
            <span class="muted small-text">{loading ? 'Loading…' : `page ${cursors.length}`}</span>
            <button type="button" disabled={!page?.next_before || loading} onClick={() => setCursors([...cursors, page!.next_before!])}>
              Older →
            </button>
          </div>
        </div>
        {selected && <JsonView value={eventAsSent(selected)} onClose={() => setSelected(null)} onFilter={addFilter} />}
      </div>
    </div>
  );
}
