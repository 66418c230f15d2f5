import { useEffect, useState } from 'preact/hooks';
import { api, type SourceStats } from '../api.ts';
import { CopyButton, ErrorBox } from '../components/common.tsx';

interface FieldDescription {
  type: string;
  mode: string;
  fields?: Record<string, FieldDescription>;
}

/** The explorer, searching for events that have the field. */
const explorerWith = (token: string, path: string) => `#/sources/${encodeURIComponent(token)}/explore?${new URLSearchParams({ q: `-${path}:NULL`, range: '24h' })}`;

function FieldTree({ fields, path, token }: { fields: Record<string, FieldDescription>; path: string; token: string }) {
  return (
    <ul class="tree">
      {Object.entries(fields).map(([name, field]) => {
        // The query path people type: metadata fields are reached as m.<name> in the explorer.
        const full = path ? `${path}.${name}` : name === 'metadata' ? 'm' : name;
        return (
          <li key={name}>
            {field.fields ? (
              <details open={path === '' || path === 'm'}>
                <summary>
                  <span class="field-name">{name}</span> <span class="field-type">RECORD{field.mode === 'REPEATED' ? ' (repeated)' : ''}</span>
                </summary>
                <FieldTree fields={field.fields} path={full} token={token} />
              </details>
            ) : (
              <span>
                <span class="field-name">{name}</span> <span class="field-type">{field.type}{field.mode === 'REPEATED' ? ' list' : ''}</span>{' '}
                <a class="small-text field-filter" href={explorerWith(token, full)} title={`events that have ${full} (filter with ${full}:value)`}>
                  <code>{full}</code>
                </a>
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function SchemaTree({ token, canManage }: { token: string; canManage: boolean }) {
  const [schema, setSchema] = useState<Record<string, FieldDescription> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!canManage) return;
    api<Record<string, FieldDescription>>('GET', `/api/sources/${token}/schema`).then(setSchema, (caught: Error) => setError(caught.message));
  }, [token]);
  if (!canManage) return <p class="muted">The schema is part of the management API: sign in with a private key to see it.</p>;
  return (
    <div class="panel schema" data-testid="schema-tree">
      <ErrorBox error={error} />
      {schema ? <FieldTree fields={schema} path="" token={token} /> : !error && <p class="muted">Loading…</p>}
      <p class="muted small-text">Fields appear as events carrying them arrive. Nested records are reached in SQL with CROSS JOIN UNNEST, in the explorer as m.a.b.</p>
    </div>
  );
}

function snippetsFor(origin: string, source: SourceStats): Array<[string, string]> {
  const { token, name } = source;
  return [
    [
      'curl',
      `curl -X POST "${origin}/logs?source=${token}" \\
  -H "x-api-key: $SAWMILL_API_KEY" -H "content-type: application/json" \\
  -d '{"message": "hello from curl", "metadata": {"level": "info", "user": {"id": 7}}}'`,
    ],
    [
      'pino',
      `// npm install pino pino-logflare
import pino from 'pino';
import { createWriteStream } from 'pino-logflare';

// Each line is sent once, as it is logged. (pino.transport({ target: 'pino-logflare' })
// sends the lines still batched at exit twice: docs/clients.md.)
const stream = createWriteStream({ apiKey: process.env.SAWMILL_API_KEY, sourceToken: '${token}', apiBaseUrl: '${origin}' });
const logger = pino(stream);
logger.info({ user: { id: 7 } }, 'hello from pino');`,
    ],
    [
      'Vector',
      `# vector.yaml
sinks:
  sawmill:
    type: http
    inputs: [my_logs]
    uri: "${origin}/api/logs?source=${token}"
    method: post
    encoding: { codec: json }
    request:
      headers:
        x-api-key: "\${SAWMILL_API_KEY}"`,
    ],
    [
      'Fluent Bit',
      `# fluent-bit.conf
[OUTPUT]
    Name             http
    Match            *
    Host             ${new URL(origin).hostname}
    Port             ${new URL(origin).port || (origin.startsWith('https') ? 443 : 80)}
    URI              /logs/json?source=${token}
    Format           json
    Json_date_key    timestamp
    Json_date_format iso8601
    Header           x-api-key \${SAWMILL_API_KEY}${origin.startsWith('https') ? '\n    tls              On' : ''}`,
    ],
    ['by name', `# Any sender may name the source instead of giving its UUID:\ncurl -X POST "${origin}/logs?source_name=${encodeURIComponent(name)}" \\
  -H "x-api-key: $SAWMILL_API_KEY" -H "content-type: application/json" -d '{"message": "hi"}'`],
  ];
}

export function Snippets({ source }: { source: SourceStats }) {
  const snippets = snippetsFor(window.location.origin, source);
  const [shown, setShown] = useState(snippets[0]![0]);
  const current = snippets.find(([label]) => label === shown) ?? snippets[0]!;
  return (
    <div class="panel snippets">
      <p class="muted">
        Send events with a private or ingest key in <code>SAWMILL_API_KEY</code>. Every reply of <code>{'{"message":"Logged!"}'}</code> means the events are on disk.
      </p>
      <div class="tabs small">
        {snippets.map(([label]) => (
          <button type="button" key={label} class={label === shown ? 'active' : ''} onClick={() => setShown(label)}>
            {label}
          </button>
        ))}
        <span class="spacer" />
        <CopyButton text={current[1]} />
      </div>
      <pre class="snippet" data-testid="snippet">
        {current[1]}
      </pre>
    </div>
  );
}
