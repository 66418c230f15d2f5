import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { CopyField, ErrorBox } from '../components/common.tsx';
import { agoText, countText } from '../format.ts';
import { Explorer } from './Explorer.tsx';
import { LiveTail } from './LiveTail.tsx';
import { SchemaTree, Snippets } from './SourceSetup.tsx';
import { useSources } from './SourceList.tsx';

const TABS = [
  ['explore', 'Explorer'],
  ['tail', 'Live tail'],
  ['schema', 'Schema'],
  ['send', 'Send logs'],
] as const;

const keptText = (days: number | null) => (days === null ? 'forever' : `${days} day${days === 1 ? '' : 's'}`);

/** How long the source keeps events, and (with the private key) a way to change it. */
function Retention({ token, days, canManage, onSaved }: { token: string; days: number | null; canManage: boolean; onSaved: () => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    const text = editing!.trim();
    try {
      await api('PATCH', `/api/sources/${token}`, { retention_days: text === '' ? null : Number(text) });
      setEditing(null);
      setError(null);
      onSaved();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <div class="muted source-retention" data-testid="retention">
      {editing === null ? (
        <>
          Keeps events <strong data-testid="retention-value">{keptText(days)}</strong>
          {canManage && (
            <button type="button" class="small" onClick={() => setEditing(days === null ? '' : String(days))}>
              Change
            </button>
          )}
        </>
      ) : (
        <form class="inline-form" onSubmit={save}>
          <label>
            Days to keep events (empty: forever)
            <input name="retention" type="number" min="1" step="1" value={editing} onInput={(event) => setEditing(event.currentTarget.value)} autoFocus />
          </label>
          <button type="submit" class="primary">
            Save retention
          </button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
      <ErrorBox error={error} />
      <span class="hint">Older events go at the next sweep (every five minutes with DuckDB; at ClickHouse's next merge with ClickHouse).</span>
    </div>
  );
}

export function SourcePage({ token, tab, canManage }: { token: string; tab: string; canManage: boolean }) {
  const { sources, error, reload } = useSources();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const source = sources?.find((item) => item.token === token);

  if (sources === null) return error ? <ErrorBox error={error} /> : <p class="muted">Loading…</p>;
  if (!source) return <ErrorBox error={`No source ${token}.`} />;

  const rename = async (event: Event) => {
    event.preventDefault();
    try {
      await api('PATCH', `/api/sources/${token}`, { name: renaming!.trim() });
      setRenaming(null);
      setActionError(null);
      await reload();
    } catch (caught) {
      setActionError((caught as Error).message);
    }
  };
  const remove = async () => {
    if (!window.confirm(`Delete source ${source.name} and all ${countText(source.events)} of its events? This cannot be undone.`)) return;
    try {
      await api('DELETE', `/api/sources/${token}`);
      window.location.hash = '#/sources';
    } catch (caught) {
      setActionError((caught as Error).message);
    }
  };

  return (
    <section>
      <div class="page-head">
        {renaming === null ? (
          <h2 data-testid="source-name">{source.name}</h2>
        ) : (
          <form class="inline-form" onSubmit={rename}>
            <input name="rename" value={renaming} onInput={(event) => setRenaming(event.currentTarget.value)} autoFocus required />
            <button type="submit" class="primary">
              Save name
            </button>
            <button type="button" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </form>
        )}
        <span class="muted">
          {countText(source.events)} events · {countText(source.events_last_minute)}/min · last {agoText(source.last_event)}
        </span>
        <span class="spacer" />
        {canManage && renaming === null && (
          <>
            <button type="button" onClick={() => setRenaming(source.name)}>
              Rename
            </button>
            <button type="button" class="danger" onClick={remove}>
              Delete
            </button>
          </>
        )}
      </div>
      <div class="muted source-token">
        Source UUID <CopyField text={source.token} />
      </div>
      <Retention token={token} days={source.retention_days} canManage={canManage} onSaved={() => void reload()} />
      <ErrorBox error={actionError} />
      <nav class="tabs">
        {TABS.map(([id, label]) => (
          <a key={id} href={`#/sources/${token}/${id}`} class={tab === id ? 'active' : ''}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'tail' ? (
        <LiveTail token={token} />
      ) : tab === 'schema' ? (
        <SchemaTree token={token} canManage={canManage} />
      ) : tab === 'send' ? (
        <Snippets source={source} />
      ) : (
        <Explorer token={token} onLoaded={() => void reload()} />
      )}
    </section>
  );
}
