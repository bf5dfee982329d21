/**
 * The connection's state inside a modal dialog. The dialog makes the rest of
 * the page inert, the top bar's status line with it, so a screen reader would
 * not hear that the connection dropped. The region is always there (empty
 * while connected) so that a change is announced.
 * @module
 */
import type { ConnectionStatus } from "../../client/index.js";

export function DialogConnectionStatus({ status }: { status: ConnectionStatus | null }) {
  return (
    <p class="dialog-status" role="status">
      {status?.state === "reconnecting" ? "Reconnecting… Your answer is sent once the connection is back." : null}
    </p>
  );
}
