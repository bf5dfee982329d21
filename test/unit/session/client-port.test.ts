import { describe, expect, it } from "vitest";
import { notificationFrame, RequestError } from "@hermes-edge/protocol";
import { clientPortFor } from "../../../src/session/client-port.js";
import { ClientRequests } from "../../../src/session/client-requests.js";
import type { UpdateLog } from "../../../src/session/update-log.js";

/** The three things `clientPortFor` uses of an `UpdateLog`, with real `ClientRequests` and a record of what was sent. */
function logSending() {
  const sent: string[] = [];
  const requests = new ClientRequests(
    () => "sess-1",
    (_connectionId, requestId) => sent.push(notificationFrame("$/cancel_request", { requestId })),
  );
  const log = {
    attached: () => [["conn-a", { elicitation: { form: {} } }]],
    requests,
    send: (_connectionId: string, frame: string) => sent.push(frame),
  };
  return { sent, port: clientPortFor(log as unknown as UpdateLog, "conn-a") };
}

describe("clientPortFor", () => {
  it("sends the request and stops waiting, withdrawing it, when the signal aborts later", async () => {
    const { sent, port } = logSending();
    const controller = new AbortController();
    const answer = port.request("elicitation/create", { message: "?" }, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(await answer).toBeInstanceOf(RequestError);
    expect(sent.map((f) => JSON.parse(f).method)).toEqual(["elicitation/create", "$/cancel_request"]);
  });

  it("sends nothing when the signal has already aborted: no question the agent no longer waits for, no withdrawal ahead of it", async () => {
    const { sent, port } = logSending();
    const controller = new AbortController();
    controller.abort();
    const error = await port.request("elicitation/create", { message: "?" }, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe(-32800);
    expect(sent).toEqual([]);
  });
});
