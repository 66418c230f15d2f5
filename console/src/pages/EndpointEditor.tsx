import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, apiReply, parameterUse, query, type Endpoint } from '../api.ts';
import { TimeSeriesChart } from '../components/charts.tsx';
import { CopyField, ErrorBox } from '../components/common.tsx';
import { SqlEditor, type QueryLanguage, type SqlErrorPosition } from '../components/SqlEditor.tsx';
import { zoneText } from '../chart-data.ts';
import { cellText, timeText, timeValue } from '../format.ts';
import { useSources } from './SourceList.tsx';
import { endpointUrl } from './EndpointList.tsx';

type Draft = Omit<Endpoint, 'id' | 'token'>;

/** `f:` takes a bare name of word characters, dots and dashes; any other is quoted. */
const lqlSource = (name: string) => (/^[\w.-]+$/.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`);

/**
 * What a new endpoint starts with in each language (a query over `source`, which runs as it
 * stands), and what the editor says about it.
 */
const LANGUAGES: Record<QueryLanguage, { label: string; starter: (source: string) => string; hint: string }> = {
  bq_sql: {
    label: 'BigQuery SQL',
    starter: (source) => `select timestamp, event_message\nfrom \`${source}\`\nwhere event_message like concat('%', @search, '%')\norder by timestamp desc\nlimit 100`,
    hint: 'BigQuery SQL · read sources by name in backticks · @name parameters',
  },
  ch_sql: {
    label: 'ClickHouse SQL',
    starter: (source) => `select toStartOfMinute(timestamp) as minute, count() as events\nfrom \`${source}\`\nwhere event_message like {pattern:String}\ngroup by minute\norder by minute`,
    hint: 'ClickHouse SQL · read sources by name in backticks · {name:Type} or @name parameters',
  },
  lql: {
    label: 'LQL',
    starter: (source) => `f:${lqlSource(source)} @search`,
    hint: 'LQL · f:<source> names the source · answers its events, newest first · a bare @name searches event_message · field:@name',
  },
};

/** The source a new endpoint starts from: the one with the most events (the first when none has any). */
export function starterSource(sources: ReadonlyArray<{ name: string; events: number }> | null): string | undefined {
  if (!sources || sources.length === 0) return undefined;
  return sources.reduce((best, source) => (source.events > best.events ? source : best)).name;
}

/** Before the sources are known (or when there are none): a name to replace, said as such. */
const NO_SOURCE_YET = 'your.source';

const NEW_ENDPOINT: Draft = {
  name: '',
  description: null,
  query: LANGUAGES.bq_sql.starter(NO_SOURCE_YET),
  language: 'bq_sql',
  sandboxable: false,
  cache_duration_seconds: 0,
  proactive_requerying_seconds: 0,
  max_limit: 1000,
  enable_auth: true,
};

const MAX_SHOWN_ROWS = 500;

/**
 * The parameters a query uses, ignoring strings, quoted names and comments: `@name` in every
 * language, and ClickHouse's `{name:Type}` in ch_sql. LQL quotes only with double quotes.
 */
export function parametersOf(query: string, language: QueryLanguage = 'bq_sql'): string[] {
  const code =
    language === 'lql'
      ? query.replace(/"(?:[^"\\]|\\.)*"/g, ' ')
      : query.replace(/--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`/g, ' ');
  const names = [...code.matchAll(/(?<![@\w])@([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
  if (language === 'ch_sql') names.push(...[...code.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:[^{}]+\}/g)].map((match) => match[1]!));
  return [...new Set(names)];
}

/** Columns whose every value is a time (TIMESTAMP microseconds or a DATETIME string). */
function timeColumns(rows: Array<Record<string, unknown>>): string[] {
  if (rows.length === 0) return [];
  return Object.keys(rows[0]!).filter((name) => rows.every((row) => row[name] === null || timeValue(row[name]) !== undefined) && rows.some((row) => row[name] !== null));
}

/** A time column and the numeric columns to draw over it, when the rows have them. */
function chartable(rows: Array<Record<string, unknown>>) {
  if (rows.length < 2) return null;
  const columns = Object.keys(rows[0]!);
  const timeColumn = timeColumns(rows)[0];
  if (!timeColumn) return null;
  const numeric = columns.filter((name) => name !== timeColumn && rows.every((row) => row[name] === null || typeof row[name] === 'number'));
  if (numeric.length === 0) return null;
  return {
    times: rows.map((row) => timeValue(row[timeColumn]) ?? 0),
    series: numeric.slice(0, 6).map((name) => ({ name, values: rows.map((row) => row[name] as number | null) })),
  };
}

/** Where to mark the text: the service's SQL errors end in `(line N, column M)` or, in BigQuery's words, `at [N:M]`. */
export function sqlErrorPosition(message: string): SqlErrorPosition | null {
  const match = /\(line (\d+), column (\d+)\)|\bat \[(\d+):(\d+)\]/.exec(message);
  return match ? { line: Number(match[1] ?? match[3]), column: Number(match[2] ?? match[4]), message } : null;
}

export function EndpointEditor({ token: routeToken, canManage }: { token: string; canManage: boolean }) {
  const isNew = routeToken === 'new';
  const [token, setToken] = useState<string | null>(isNew ? null : routeToken);
  const [draft, setDraft] = useState<Draft | null>(isNew ? NEW_ENDPOINT : null);
  const [dirty, setDirty] = useState(isNew);
  const [params, setParams] = useState<Record<string, string>>({});
  const [extraParams, setExtraParams] = useState('');
  const [rows, setRows] = useState<Array<Record<string, unknown>> | null>(null);
  const [took, setTook] = useState<number | null>(null);
  const [paramUse, setParamUse] = useState<{ missing: string[]; unknown: string[] }>({ missing: [], unknown: [] });
  const [error, setError] = useState<string | null>(null);
  /** A new object per failure, so the same position is marked again after the text was edited. */
  const [errorMark, setErrorMark] = useState<SqlErrorPosition | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { sources } = useSources();

  useEffect(() => {
    if (isNew || !canManage) return;
    api<Endpoint>('GET', `/api/endpoints/${routeToken}`).then(
      ({ id: _id, token: _token, ...endpoint }) => setDraft(endpoint),
      (caught: Error) => setError(caught.message),
    );
  }, [routeToken]);

  const names = useMemo(() => (draft ? parametersOf(draft.query, draft.language) : []), [draft?.query, draft?.language]);
  const tables = useMemo(() => sources?.map((source) => source.name) ?? [], [sources?.map((source) => source.name).join('\n')]);
  const starterFrom = starterSource(sources) ?? NO_SOURCE_YET;
  /** The starter last put in the editor: a query still equal to it (or empty) nobody has written. */
  const starter = useRef(NEW_ENDPOINT.query);
  const untouched = (current: Draft) => current.query.trim() === '' || current.query === starter.current;
  const withStarter = (current: Draft, language: QueryLanguage): Draft => {
    starter.current = LANGUAGES[language].starter(starterFrom);
    return { ...current, language, query: starter.current };
  };

  // A new endpoint's starter reads one of the person's own sources once they are known (once:
  // it does not move to another source while the person reads it).
  useEffect(() => {
    if (token !== null || starterFrom === NO_SOURCE_YET) return;
    setDraft((current) => (current && current.query === LANGUAGES[current.language].starter(NO_SOURCE_YET) ? withStarter(current, current.language) : current));
  }, [starterFrom]);

  const update = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    setDraft((current) => (current ? { ...current, [field]: value } : current));
    setDirty(true);
    setNotice(null);
  };

  /** Another language; a query still as it started (or empty) becomes the new language's starter. */
  const changeLanguage = (language: QueryLanguage) => {
    if (!draft) return;
    setDraft(untouched(draft) ? withStarter(draft, language) : { ...draft, language });
    setDirty(true);
    setNotice(null);
    setErrorMark(null);
  };

  /** Create or update; returns the token to run, or null when saving failed. */
  const save = async (): Promise<string | null> => {
    if (!draft) return token;
    setBusy(true);
    setError(null);
    try {
      if (token === null) {
        const created = await api<Endpoint>('POST', '/api/endpoints', draft);
        setToken(created.token);
        // Stay on this page (and keep its state): the address becomes the endpoint's own.
        window.history.replaceState(null, '', `#/endpoints/${created.token}`);
        setDirty(false);
        setNotice('Created.');
        return created.token;
      }
      await api('PATCH', `/api/endpoints/${token}`, draft);
      setDirty(false);
      setNotice('Saved.');
      return token;
    } catch (caught) {
      showQueryError((caught as Error).message);
      return null;
    } finally {
      setBusy(false);
    }
  };

  /** An error about the query: its place is marked, and rows from an earlier run no longer stand under it. */
  const showQueryError = (message: string) => {
    setError(message);
    const position = sqlErrorPosition(message);
    setErrorMark(position);
    if (position || /^query\b/.test(message)) {
      setRows(null);
      setTook(null);
    }
  };

  const requestParams = (): Record<string, string> => {
    const values: Record<string, string> = {};
    for (const name of names) if (params[name] !== undefined && params[name] !== '') values[name] = params[name]!;
    for (const pair of extraParams.split(/\s+/).filter(Boolean)) {
      const equals = pair.indexOf('=');
      if (equals > 0) values[pair.slice(0, equals)] = pair.slice(equals + 1);
    }
    return values;
  };

  /**
   * An edited query runs as a draft: callers of the endpoint keep getting the saved query until
   * Save. Without edits (or without the right to edit) the saved endpoint runs.
   */
  const run = async (typed?: string) => {
    const queryText = typed ?? draft?.query;
    const asDraft = canManage && draft !== null && (dirty || token === null);
    setBusy(true);
    setError(null);
    setErrorMark(null);
    setNotice(null);
    const started = performance.now();
    try {
      const { body, headers } = asDraft
        ? await apiReply<{ result: Array<Record<string, unknown>> }>('POST', '/api/endpoints/preview', { query: queryText, language: draft.language, params: requestParams(), max_limit: draft.max_limit })
        : await apiReply<{ result: Array<Record<string, unknown>> }>('GET', `/api/endpoints/query/${encodeURIComponent(token ?? routeToken)}${query(requestParams())}`);
      setRows(body.result);
      setParamUse(parameterUse(headers));
      setTook(Math.round(performance.now() - started));
    } catch (caught) {
      showQueryError((caught as Error).message);
      setRows(null);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!token || !window.confirm(`Delete endpoint ${draft?.name}?`)) return;
    try {
      await api('DELETE', `/api/endpoints/${token}`);
      window.location.hash = '#/endpoints';
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const columns = rows ? [...new Set(rows.slice(0, MAX_SHOWN_ROWS).flatMap((row) => Object.keys(row)))] : [];
  const chart = useMemo(() => (rows ? chartable(rows) : null), [rows]);
  const times = useMemo(() => new Set(rows ? timeColumns(rows) : []), [rows]);
  const url = `${endpointUrl(token ?? routeToken)}${query(requestParams())}`;

  return (
    <section class="endpoint-editor">
      <div class="page-head">
        <h2>{isNew && token === null ? 'New endpoint' : (draft?.name ?? routeToken)}</h2>
        {dirty && canManage && <span class="badge warn">unsaved</span>}
        <span class="spacer" />
        {canManage && (
          <button type="button" onClick={() => void save()} disabled={busy || !draft}>
            Save
          </button>
        )}
        <button type="button" class="primary" onClick={() => void run()} disabled={busy} data-testid="run-endpoint">
          {busy ? 'Running…' : canManage && dirty ? 'Run draft' : 'Run'}
        </button>
        {canManage && token && (
          <button type="button" class="danger" onClick={remove}>
            Delete
          </button>
        )}
      </div>
      <ErrorBox error={error} />
      {notice && <p class="notice">{notice}</p>}
      {canManage && dirty && token !== null && <p class="muted small-text">Run draft shows the edited query's rows; callers of this endpoint get the saved query until you save.</p>}
      {canManage && draft && (
        <div class="editor-grid">
          <div class="panel">
            <label>
              Name
              <input name="endpoint-name" value={draft.name} onInput={(event) => update('name', event.currentTarget.value)} placeholder="e.g. errors-by-path" required />
            </label>
            <label>
              Description
              <input name="endpoint-description" value={draft.description ?? ''} onInput={(event) => update('description', event.currentTarget.value || null)} />
            </label>
            <label>
              Language
              <select name="endpoint-language" value={draft.language} onChange={(event) => changeLanguage(event.currentTarget.value as QueryLanguage)}>
                {(Object.keys(LANGUAGES) as QueryLanguage[]).map((language) => (
                  <option key={language} value={language}>
                    {LANGUAGES[language].label} ({language})
                  </option>
                ))}
              </select>
            </label>
            <div class="label">
              Query <span class="muted small-text">{LANGUAGES[draft.language].hint} · Ctrl/⌘-Enter runs</span>
            </div>
            <SqlEditor value={draft.query} onChange={(value) => update('query', value)} onRun={(text) => void run(text)} tables={tables} error={errorMark} language={draft.language} />
          </div>
          <div class="panel settings">
            <h3>Settings</h3>
            <label>
              Cache results for (seconds, 0: off)
              <input type="number" min={0} name="cache" value={draft.cache_duration_seconds} onInput={(event) => update('cache_duration_seconds', Number(event.currentTarget.value))} />
            </label>
            <label>
              Re-run in the background every (seconds, 0: off)
              <input type="number" min={0} name="warming" value={draft.proactive_requerying_seconds} onInput={(event) => update('proactive_requerying_seconds', Number(event.currentTarget.value))} />
            </label>
            <label>
              Max rows
              <input type="number" min={1} max={10000} name="max-limit" value={draft.max_limit} onInput={(event) => update('max_limit', Number(event.currentTarget.value))} />
            </label>
            <label class="check">
              <input type="checkbox" name="sandboxable" checked={draft.sandboxable} onChange={(event) => update('sandboxable', event.currentTarget.checked)} />
              Sandboxable (callers may pass <code>sql</code> that reads this query's CTEs)
            </label>
            <label class="check">
              <input type="checkbox" name="enable-auth" checked={draft.enable_auth} onChange={(event) => update('enable_auth', event.currentTarget.checked)} />
              Require a key (off: anyone with the URL may run it)
            </label>
          </div>
        </div>
      )}
      <div class="panel">
        <h3>Parameters</h3>
        {names.length === 0 && canManage && <p class="muted small-text">This query uses no @parameters.</p>}
        <div class="params">
          {names.map((name) => (
            <label key={name}>
              @{name}
              <input name={`param-${name}`} value={params[name] ?? ''} onInput={(event) => setParams({ ...params, [name]: event.currentTarget.value })} placeholder="empty: NULL" />
            </label>
          ))}
          {!canManage && (
            <label>
              name=value pairs, space separated
              <input name="param-pairs" value={extraParams} onInput={(event) => setExtraParams(event.currentTarget.value)} />
            </label>
          )}
        </div>
        {(token || !canManage) && (
          <div class="muted small-text url-line">
            URL <CopyField text={url} />
          </div>
        )}
      </div>
      {rows && (
        <div class="panel results">
          <div class="panel-head muted small-text" data-testid="result-summary">
            {rows.length} row{rows.length === 1 ? '' : 's'} in {took} ms{rows.length > MAX_SHOWN_ROWS ? ` (first ${MAX_SHOWN_ROWS} shown)` : ''}
            {times.size > 0 && ` · times in ${zoneText()}`}
          </div>
          {(paramUse.missing.length > 0 || paramUse.unknown.length > 0) && (
            <p class="param-note small-text" data-testid="param-note">
              {paramUse.missing.length > 0 && `Empty, so run as NULL: ${paramUse.missing.map((name) => `@${name}`).join(', ')}.`}
              {paramUse.missing.length > 0 && paramUse.unknown.length > 0 && ' '}
              {paramUse.unknown.length > 0 && `Not used by the query, so ignored: ${paramUse.unknown.join(', ')}.`}
            </p>
          )}
          {chart && <TimeSeriesChart times={chart.times} series={chart.series} />}
          <div class="scroll">
            <table class="grid" data-testid="result-table">
              <thead>
                <tr>
                  {columns.map((name) => (
                    <th key={name}>{name}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.slice(0, MAX_SHOWN_ROWS).map((row, index) => (
                  <tr key={index}>
                    {columns.map((name) =>
                      // Times read as local times; the value the API returns stays in the tooltip.
                      times.has(name) && typeof row[name] === 'number' ? (
                        <td key={name} title={String(row[name])}>
                          {timeText(row[name] as number)}
                        </td>
                      ) : (
                        <td key={name}>{cellText(row[name])}</td>
                      ),
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  );
}
