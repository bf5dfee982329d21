/**
 * A tool call's way to the editor, with the ids of its requests kept in the
 * turn's steps. When a restart cuts the call off and it runs again, each
 * request goes out under the id it had before (matched by method and order
 * within the call): a proxy that re-attached knows the editor already shows
 * that dialog, or has its answer, and an answer to the old request settles
 * the new one. The editor's answer counts once, whichever request it answers.
 */
import type { ClientPort } from "../tools/tool.js";
import type { TurnSteps } from "./turn-steps.js";

export function stepClient(client: ClientPort, steps: Pick<TurnSteps, "requestId" | "asked">, toolCallId: string): ClientPort {
  const sent = new Map<string, number>();
  return {
    get capabilities() {
      return client.capabilities;
    },
    request(method, params, options = {}) {
      const n = sent.get(method) ?? 0;
      sent.set(method, n + 1);
      const key = `${method}#${n}`;
      const id = steps.requestId(toolCallId, key);
      return client.request(method, params, {
        ...options,
        ...(id !== undefined ? { id } : {}),
        opened: (openedId) => {
          steps.asked(toolCallId, key, openedId);
          options.opened?.(openedId);
        },
      });
    },
  };
}
