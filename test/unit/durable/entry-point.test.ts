import { RequestError, sessionNotFound } from "@hermes-edge/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answer } from "../../../src/durable/entry-point.js";

const where = { class: "SessionObject", method: "create", sessionId: "s-1" } as const;

afterEach(() => vi.restoreAllMocks());

describe("answer (a Durable Object entry point with an error channel)", () => {
  it("answers an unexpected throw with a bare -32603 and logs it with where it happened", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const outcome = await answer(where, () => {
      throw new Error('Failed query: insert into "sessions" ("id", "tenant") values (?, ?)\nparams: s-1,alpha');
    });
    expect(outcome).toStrictEqual({ ok: false, error: { code: -32603, message: "Internal error" } });
    expect(log).toHaveBeenCalledWith("SessionObject.create failed", where, expect.any(Error));
  });

  it("passes protocol errors through as the answers they are, unlogged", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const outcome = await answer(where, () => {
      throw sessionNotFound("s-1");
    });
    expect(outcome).toEqual({ ok: false, error: { code: -32002, message: "Resource not found", data: { detail: "no such session", sessionId: "s-1" } } });
    expect(await answer(where, () => Promise.reject(new RequestError(-32003, "tenant limit reached")))).toMatchObject({ ok: false, error: { code: -32003 } });
    expect(log).not.toHaveBeenCalled();
  });
});
