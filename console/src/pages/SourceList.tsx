import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, type SourceStats } from '../api.ts';
import { CopyButton, ErrorBox } from '../components/common.tsx';
import { agoText, countText, timeText } from '../format.ts';

const REFRESH_MS = 5_000;

export function useSources() {
  const [sources, setSources] = useState<SourceStats[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setSources(await api<SourceStats[]>('GET', '/api/explorer/sources'));
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    }
  }, []);
  useEffect(() => {
    void reload();
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  return { sources, error, reload };
}

export function SourceList({ canManage }: { canManage: boolean }) {
  const { sources, error, reload } = useSources();
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setCreateError(null);
    try {
      const source = await api<{ token: string }>('POST', '/api/sources', { name: name.trim() });
      setName('');
      await reload();
      window.location.hash = `#/sources/${source.token}/send`;
    } catch (caught) {
      setCreateError((caught as Error).message);
    }
  };

  return (
    <section>
      <div class="page-head">
        <h2>Sources</h2>
        <span class="spacer" />
        {canManage && (
          <form class="inline-form" onSubmit={create}>
            <input name="source-name" placeholder="new source name, e.g. api.logs.prod" value={name} onInput={(event) => setName(event.currentTarget.value)} required />
            <button type="submit" class="primary">
              Create source
            </button>
          </form>
        )}
      </div>
      <ErrorBox error={error ?? createError} />
      {sources === null ? (
        <p class="muted">Loading…</p>
      ) : sources.length === 0 ? (
        <p class="muted">No sources yet.</p>
      ) : (
        <div class="table-scroll">
          <table class="grid" data-testid="sources-table">
            <thead>
              <tr>
                <th>Name</th>
                <th class="num">Events</th>
                <th class="num wide-only">Last minute</th>
                <th>Last event</th>
                <th class="wide-only">Token</th>
              </tr>
            </thead>
            <tbody>
              {sources.map((source) => (
                <tr key={source.token} data-source={source.name}>
                  <td>
                    <a href={`#/sources/${source.token}/explore`}>{source.name}</a>
                    {source.description && <div class="muted small-text">{source.description}</div>}
                  </td>
                  <td class="num" data-testid="source-events">
                    {countText(source.events)}
                  </td>
                  <td class="num wide-only">{countText(source.events_last_minute)}/min</td>
                  <td title={timeText(source.last_event)}>{agoText(source.last_event)}</td>
                  {/* On a phone the token is on the source's own page, with its Copy button. */}
                  <td class="wide-only">
                    <code class="token">{source.token}</code> <CopyButton text={source.token} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
