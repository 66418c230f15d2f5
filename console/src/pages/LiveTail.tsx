import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, followEvents, isTransient, type LogEvent } from '../api.ts';
import { ErrorBox, JsonView } from '../components/common.tsx';
import { eventAsSent } from '../event-view.ts';
import { timeText } from '../format.ts';
import { LQL_EXAMPLE } from './Explorer.tsx';

/** Shown at most; older lines fall off the bottom. */
const MAX_LINES = 500;

type Status = 'connecting' | 'live' | 'paused' | 'reconnecting' | 'closed';

/** Waits between attempts to reconnect, in ms: quick at first, then every few seconds for as long as the page is open. */
const RETRY_DELAYS = [500, 1000, 2000, 4000];

export function LiveTail({ token }: { token: string }) {
  const [text, setText] = useState('');
  const [filter, setFilter] = useState('');
  const [events, setEvents] = useState<LogEvent[]>([]);
  const [held, setHeld] = useState<LogEvent[]>([]);
  const [status, setStatus] = useState<Status>('connecting');
  const [skipped, setSkipped] = useState(0);
  const [selected, setSelected] = useState<LogEvent | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Read inside the stream callback, which outlives renders.
  const paused = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    const path = `/api/sources/${token}/tail${filter ? `?q=${encodeURIComponent(filter)}` : ''}`;
    const onEvent = (event: string, data: string) => {
      if (event === 'ready') {
        setStatus(paused.current ? 'paused' : 'live');
        setError(null);
        failures = 0;
      } else if (event === 'dropped') setSkipped((count) => count + (JSON.parse(data) as { events: number }).events);
      else if (event === 'events') {
        // Newest first, like the explorer.
        const arrived = (JSON.parse(data) as LogEvent[]).reverse();
        if (paused.current) setHeld((list) => [...arrived, ...list].slice(0, MAX_LINES));
        else setEvents((list) => [...arrived, ...list].slice(0, MAX_LINES));
      }
    };
    let failures = 0;
    // A stream that ends (the service restarted) or cannot connect is followed again; a refusal
    // (a filter that cannot match, a key no longer valid) is shown and not retried.
    const follow = async () => {
      setStatus('connecting');
      setError(null);
      while (!controller.signal.aborted) {
        try {
          await followEvents(path, controller.signal, onEvent);
        } catch (caught) {
          if (controller.signal.aborted) return;
          if (caught instanceof ApiError && !isTransient(caught)) {
            setError(caught.message);
            setStatus('closed');
            return;
          }
        }
        if (controller.signal.aborted) return;
        setStatus('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS[Math.min(failures++, RETRY_DELAYS.length - 1)]));
      }
    };
    void follow();
    return () => controller.abort();
  }, [token, filter]);

  const togglePause = () => {
    if (paused.current) {
      paused.current = false;
      setEvents((list) => [...held, ...list].slice(0, MAX_LINES));
      setHeld([]);
      setStatus('live');
    } else {
      paused.current = true;
      setStatus('paused');
    }
  };

  const apply = (event: Event) => {
    event.preventDefault();
    setEvents([]);
    setHeld([]);
    setFilter(text.trim());
  };

  return (
    <div class="tail">
      <form class="toolbar" onSubmit={apply}>
        <input class="lql" name="tail-q" placeholder={`filter, e.g. ${LQL_EXAMPLE}`} value={text} onInput={(event) => setText(event.currentTarget.value)} spellcheck={false} aria-label="Filter" />
        <button type="submit" class="primary">
          Apply filter
        </button>
        <button type="button" onClick={togglePause} data-testid="tail-pause">
          {status === 'paused' ? `Resume${held.length ? ` (${held.length} new)` : ''}` : 'Pause'}
        </button>
        <button type="button" onClick={() => setEvents([])}>
          Clear
        </button>
        <span class={`tail-status tail-status-${status}`} data-testid="tail-status">
          {status}
        </span>
      </form>
      <ErrorBox error={error} />
      {skipped > 0 && <p class="muted small-text">{skipped} events were skipped because they arrived faster than this page could take them.</p>}
      <div class={selected ? 'split' : ''}>
        <div class="panel tail-lines" data-testid="tail-lines">
          {events.length === 0 && <p class="muted empty">Waiting for events{filter ? ' that match' : ''}…</p>}
          {events.map((event) => (
            <div key={event.id} class={`tail-line ${selected?.id === event.id ? 'selected' : ''}`} onClick={() => setSelected(event)} data-testid="tail-line">
              <span class="time">{timeText(event.timestamp)}</span>
              <span class="message">{event.event_message}</span>
            </div>
          ))}
        </div>
        {selected && <JsonView value={eventAsSent(selected)} onClose={() => setSelected(null)} />}
      </div>
    </div>
  );
}
