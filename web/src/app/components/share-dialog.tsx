/**
 * "Share": who else may open this session, and with which role. A user name
 * (or everyone in the team) with "Viewer" or "Driver", "Add", "Stop sharing"
 * for each entry, and "Copy link" for a viewer link anyone can open without a key.
 * @module
 */
import type { Share, ShareRole } from "@hermes-edge/protocol";
import { useEffect, useRef, useState } from "preact/hooks";
import { addShare, createViewerLink, listShares, removeShare } from "../state/sharing-api.js";

const EVERYONE = "*";

export function ShareDialog({ sessionId, apiKey, onClose }: { sessionId: string; apiKey: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [shares, setShares] = useState<Share[] | null>(null);
  const [user, setUser] = useState("");
  const [everyone, setEveryone] = useState(false);
  const [role, setRole] = useState<ShareRole>("viewer");
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    dialog.current?.showModal();
    listShares(apiKey, sessionId).then(setShares, (err: unknown) => setError(String((err as Error).message ?? err)));
    return () => dialog.current?.close();
  }, [sessionId]);

  const run = async (work: () => Promise<Share[] | void>) => {
    setError(null);
    try {
      const next = await work();
      if (next) setShares(next);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  const add = () => run(async () => {
    const target = everyone ? EVERYONE : user.trim();
    if (!target) throw new Error("Enter a user name, or check “Everyone in the team”.");
    const next = await addShare(apiKey, sessionId, target, role);
    setUser("");
    return next;
  });

  const copyLink = () => run(async () => {
    const made = await createViewerLink(apiKey, sessionId);
    setLink(made.url);
    await navigator.clipboard?.writeText(made.url).catch(() => undefined);
  });

  return (
    <dialog ref={dialog} class="share-dialog" aria-labelledby="share-title" onClose={onClose}>
      <h2 id="share-title">Share this session</h2>
      <form
        class="share-form"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label>
          Share with
          <input type="text" value={user} disabled={everyone} spellcheck={false} autocomplete="off" onInput={(e) => setUser((e.target as HTMLInputElement).value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={everyone} onChange={(e) => setEveryone((e.target as HTMLInputElement).checked)} />
          Everyone in the team
        </label>
        <fieldset class="roles">
          <legend>Role</legend>
          {(["viewer", "driver"] as const).map((r) => (
            <label key={r} class="check">
              <input type="radio" name="share-role" value={r} checked={role === r} onChange={() => setRole(r)} />
              {r === "viewer" ? "Viewer" : "Driver"}
            </label>
          ))}
        </fieldset>
        <button type="submit">Add</button>
      </form>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <ul class="share-list" aria-label="Shared with">
        {(shares ?? []).map((s) => (
          <li key={s.user}>
            <span>{s.user === EVERYONE ? "Everyone in the team" : s.user}</span>
            <span class="pill">{s.role === "viewer" ? "Viewer" : "Driver"}</span>
            <button type="button" class="link" aria-label={`Stop sharing with ${s.user === EVERYONE ? "everyone in the team" : s.user}`} onClick={() => void run(() => removeShare(apiKey, sessionId, s.user))}>
              Stop sharing
            </button>
          </li>
        ))}
      </ul>
      {shares?.length === 0 ? <p class="muted small">Not shared with anyone yet.</p> : null}
      <div class="share-link">
        <button type="button" class="secondary" onClick={() => void copyLink()}>
          Copy link
        </button>
        {link ? <input type="text" readOnly value={link} aria-label="Viewer link" onFocus={(e) => (e.target as HTMLInputElement).select()} /> : null}
      </div>
      <div class="share-actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Done
        </button>
      </div>
    </dialog>
  );
}
