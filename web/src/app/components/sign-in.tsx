/** The sign-in form: a service key, "Remember this browser", "Sign in". */
import { useState } from "preact/hooks";
import type { AppController } from "../state/app-controller.js";
import type { AppState } from "../state/app-state.js";

export function SignIn({ controller, state }: { controller: AppController; state: AppState }) {
  const [key, setKey] = useState("");
  const [remember, setRemember] = useState(false);
  const busy = state.phase === "signing-in";
  return (
    <main class="signin">
      <form
        class="card"
        aria-labelledby="signin-title"
        onSubmit={(e) => {
          e.preventDefault();
          void controller.signIn(key, remember);
        }}
      >
        <div class="brand">
          <img src="/favicon.svg" alt="" width={36} height={36} />
          <div>
            <h1 id="signin-title">hermes-edge</h1>
            <p class="muted">A coding agent on Cloudflare's edge</p>
          </div>
        </div>
        <label for="key">Service key</label>
        <input id="key" type="password" autocomplete="current-password" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} autofocus />
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember((e.target as HTMLInputElement).checked)} /> Remember this browser
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {state.signInError ? (
          <p class="error" role="alert">
            {state.signInError}
          </p>
        ) : null}
        <p class="muted small">
          Use a key made with <code>npm run keys -- create</code> (it starts with <code>he_</code>), or a token from <code>HERMES_EDGE_TOKENS</code>. It is kept in this tab only, or in this browser if you ask.
        </p>
      </form>
    </main>
  );
}
