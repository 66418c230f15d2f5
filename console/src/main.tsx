import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, forgetKey, storedKey, storeKey, type KeyInfo } from './api.ts';
import { ErrorBox } from './components/common.tsx';
import { EndpointEditor } from './pages/EndpointEditor.tsx';
import { EndpointList } from './pages/EndpointList.tsx';
import { SourceList } from './pages/SourceList.tsx';
import { SourcePage } from './pages/SourcePage.tsx';
import { Status } from './pages/Status.tsx';
import './style.css';

/** Hash routes keep the service's job to one page: #/sources, #/sources/<token>/<tab>, #/endpoints/<token>. */
function useRoute(): string[] {
  // A page's own state (the explorer's search) follows a `?` and is not part of the route.
  const read = () => window.location.hash.replace(/^#\/?/, '').split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

function SignIn({ onSignedIn }: { onSignedIn: (info: KeyInfo) => void }) {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const info = await api<KeyInfo>('GET', '/api/explorer/key', undefined, key.trim());
      storeKey(key.trim(), remember);
      onSignedIn(info);
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 401 ? 'That key is not valid.' : caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="sign-in">
      <form class="card" onSubmit={submit}>
        <h1>Sawmill</h1>
        <p class="muted">Sign in with a private key or a query key. It is kept in this browser tab only and forgotten when the tab closes, unless you ask below.</p>
        <label>
          API key
          <input type="password" name="key" autoComplete="off" value={key} onInput={(event) => setKey(event.currentTarget.value)} autoFocus required />
        </label>
        <label class="check">
          <input type="checkbox" name="remember" checked={remember} onChange={(event) => setRemember(event.currentTarget.checked)} />
          Keep me signed in on this device (every tab, until Sign out)
        </label>
        <ErrorBox error={error} />
        <button type="submit" class="primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p class="muted small-text">
          A local service writes its generated private key to <code>data/private-key</code>.
        </p>
      </form>
    </div>
  );
}

function App() {
  const [info, setInfo] = useState<KeyInfo | null>(null);
  const [checking, setChecking] = useState(storedKey() !== null);
  const route = useRoute();

  useEffect(() => {
    if (!storedKey()) return;
    // Only a refused key is forgotten: a service that is restarting will take it again.
    api<KeyInfo>('GET', '/api/explorer/key')
      .then(setInfo, (caught: unknown) => caught instanceof ApiError && caught.status === 401 && forgetKey())
      .finally(() => setChecking(false));
  }, []);

  if (checking) return <div class="loading">Loading…</div>;
  if (!info) return <SignIn onSignedIn={setInfo} />;

  const signOut = () => {
    forgetKey();
    setInfo(null);
    window.location.hash = '';
  };
  const [section = 'sources', id, tab] = route;
  let page;
  if (section === 'endpoints' && id) page = <EndpointEditor key={id} token={id} canManage={info.manage} />;
  else if (section === 'endpoints') page = <EndpointList canManage={info.manage} />;
  else if (section === 'status') page = <Status />;
  else if (id) page = <SourcePage key={id} token={id} tab={tab ?? 'explore'} canManage={info.manage} />;
  else page = <SourceList canManage={info.manage} />;

  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="#/sources">
          Sawmill
        </a>
        <nav>
          <a href="#/sources" class={section === 'sources' ? 'active' : ''}>
            Sources
          </a>
          <a href="#/endpoints" class={section === 'endpoints' ? 'active' : ''}>
            Endpoints
          </a>
          <a href="#/status" class={section === 'status' ? 'active' : ''}>
            Status
          </a>
        </nav>
        <span class="spacer" />
        <span class="badge" title={info.scopes.join(' ')}>
          {info.manage ? 'private key' : 'query key'}
        </span>
        <button type="button" class="small" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>{page}</main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
