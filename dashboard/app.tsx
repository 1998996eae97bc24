import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, messageOf, setUnauthorizedHandler, storeToken, storedToken } from './api';
import { ErrorBox } from './components/error-box';
import { useRoute } from './router';
import type { Whoami } from './types';
import { LoginView } from './views/login';
import { InboxView } from './views/inbox';
import { RunPage } from './views/run-page';
import { RunsList } from './views/runs-list';
import { SessionPage } from './views/session-page';
import { SessionsList } from './views/sessions-list';
import { TenantPage } from './views/tenant-page';

type Auth = { readonly phase: 'checking' } | { readonly phase: 'login'; readonly error?: string } | { readonly phase: 'ready'; readonly who: Whoami } | { readonly phase: 'down'; readonly error: string };

/** The dashboard: who is signed in, the navigation and the current view. */
export function App() {
  const [auth, setAuth] = useState<Auth>({ phase: 'checking' });
  const route = useRoute();

  const check = useCallback(() => {
    api<Whoami>('/api/whoami').then(
      (who) => setAuth({ phase: 'ready', who }),
      (err: unknown) => {
        const status = (err as { status?: number }).status;
        if (status === 401) setAuth({ phase: 'login', ...(storedToken() ? { error: messageOf(err) } : {}) });
        else setAuth({ phase: 'down', error: messageOf(err) });
      },
    );
  }, []);

  useEffect(() => {
    setUnauthorizedHandler((failure) => setAuth({ phase: 'login', error: failure.message }));
    check();
  }, [check]);

  if (auth.phase === 'checking') return <p class="hint">Connecting…</p>;
  if (auth.phase === 'down') {
    return (
      <main class="login">
        <ErrorBox error={auth.error} />
        <button onClick={check}>Retry</button>
      </main>
    );
  }
  if (auth.phase === 'login') {
    return (
      <LoginView
        error={auth.error}
        onToken={(token) => {
          storeToken(token);
          check();
        }}
      />
    );
  }
  const { who } = auth;
  return (
    <div class="app">
      {who.localDev && <div class="banner">local-dev mode: requests without a token act as admin. Do not expose this server.</div>}
      <header class="top">
        <a class="brand" href="#/runs">
          durable-agents
        </a>
        <nav>
          <a href="#/runs" class={route.view === 'runs' || route.view === 'run' ? 'active' : ''}>
            Runs
          </a>
          <a href="#/inbox" class={route.view === 'inbox' ? 'active' : ''}>
            Inbox
          </a>
          <a href="#/sessions" class={route.view === 'sessions' || route.view === 'session' ? 'active' : ''}>
            Sessions
          </a>
        </nav>
        <span class="who" data-testid="who">
          {who.name} · <b>{who.role}</b>
        </span>
        {storedToken() && (
          <button
            class="link"
            onClick={() => {
              storeToken(undefined);
              check();
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main>
        {route.view === 'runs' && <RunsList />}
        {route.view === 'inbox' && <InboxView role={who.role} />}
        {route.view === 'run' && <RunPage key={route.id} workflowId={route.id} role={who.role} />}
        {route.view === 'sessions' && <SessionsList />}
        {route.view === 'session' && <SessionPage key={route.id} sessionId={route.id} role={who.role} />}
        {route.view === 'tenant' && <TenantPage key={route.tenant} tenant={route.tenant} />}
      </main>
    </div>
  );
}
