import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box';

/**
 * The token form shown when the API answers 401: the token is kept for this tab only
 * (sessionStorage) and sent as a bearer token.
 */
export function LoginView({ error, onToken }: { error?: string | undefined; onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="login">
      <h1>durable-agents</h1>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) onToken(token.trim());
        }}
      >
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <p class="hint">Kept in this tab only. The server's operator gives out tokens (DURABLE_AGENTS_TOKENS).</p>
        <ErrorBox error={error} />
        <button type="submit" disabled={!token.trim()}>
          Sign in
        </button>
      </form>
    </main>
  );
}
