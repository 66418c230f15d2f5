import { useEffect, useState } from 'preact/hooks';
import { api, type Endpoint } from '../api.ts';
import { CopyButton, ErrorBox } from '../components/common.tsx';

export const endpointUrl = (endpoint: { token: string } | string) =>
  `${window.location.origin}/api/endpoints/query/${encodeURIComponent(typeof endpoint === 'string' ? endpoint : endpoint.token)}`;

export function EndpointList({ canManage }: { canManage: boolean }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');

  useEffect(() => {
    if (canManage) api<Endpoint[]>('GET', '/api/endpoints').then(setEndpoints, (caught: Error) => setError(caught.message));
  }, []);

  if (!canManage) {
    // A query key may run endpoints but not list or read their definitions.
    return (
      <section>
        <h2>Endpoints</h2>
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            window.location.hash = `#/endpoints/${encodeURIComponent(name.trim())}`;
          }}
        >
          <input name="endpoint-name" placeholder="endpoint name or token" value={name} onInput={(event) => setName(event.currentTarget.value)} required />
          <button type="submit" class="primary">
            Open
          </button>
        </form>
        <p class="muted">A query key runs endpoints; listing and editing them needs a private key.</p>
      </section>
    );
  }

  return (
    <section>
      <div class="page-head">
        <h2>Endpoints</h2>
        <span class="spacer" />
        <a class="button primary" href="#/endpoints/new">
          New endpoint
        </a>
      </div>
      <ErrorBox error={error} />
      {endpoints === null ? (
        !error && <p class="muted">Loading…</p>
      ) : endpoints.length === 0 ? (
        <p class="muted">No endpoints yet.</p>
      ) : (
        <div class="table-scroll">
          <table class="grid" data-testid="endpoints-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Language</th>
                <th class="wide-only">Cache</th>
                <th class="wide-only">Warming</th>
                <th class="num wide-only">Max rows</th>
                <th class="wide-only">Auth</th>
                <th>URL</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((endpoint) => (
                <tr key={endpoint.token}>
                  <td>
                    <a href={`#/endpoints/${endpoint.token}`}>{endpoint.name}</a>
                    {endpoint.description && <div class="muted small-text">{endpoint.description}</div>}
                  </td>
                  <td>
                    <code>{endpoint.language}</code>
                  </td>
                  {/* On a phone these are on the endpoint's own page. */}
                  <td class="wide-only">{endpoint.cache_duration_seconds ? `${endpoint.cache_duration_seconds}s` : 'off'}</td>
                  <td class="wide-only">{endpoint.proactive_requerying_seconds ? `every ${endpoint.proactive_requerying_seconds}s` : 'off'}</td>
                  <td class="num wide-only">{endpoint.max_limit}</td>
                  <td class="wide-only">{endpoint.enable_auth ? 'key' : 'public'}</td>
                  <td>
                    <CopyButton text={endpointUrl(endpoint)} label="Copy URL" />
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
