/**
 * How a running turn reaches the editor: through the connection that sent the
 * prompt while it is attached, otherwise through the most recently attached one.
 */
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import { requestCancelled } from "@hermes-edge/protocol";
import { ToolError, type ClientPort } from "../tools/tool.js";
import type { UpdateLog } from "./update-log.js";

export function clientPortFor(log: UpdateLog, preferred: string | null): ClientPort {
  const pick = (): [string, ClientCapabilities] | undefined => {
    const attached = log.attached();
    return attached.find(([id]) => id === preferred) ?? attached[0];
  };
  return {
    get capabilities() {
      return pick()?.[1] ?? {};
    },
    async request(method, params, options = {}) {
      const target = pick();
      if (!target) throw new ToolError(`No editor is connected to this session, so ${method} cannot run.`);
      // A request opened on an aborted signal is withdrawn at once: sending it then would reach the editor after its withdrawal.
      if (options.signal?.aborted) throw requestCancelled();
      const { id, frame, answer } = log.requests.open(target[0], method, params, options);
      options.opened?.(id);
      log.send(target[0], frame);
      return answer;
    },
  };
}
