import { describe, expect, it } from "vitest";
import { ErrorCode, RequestError } from "@hermes-edge/protocol";
import { allows, answers, mayCreate, requireAccess, roleOf, type SessionAccessFacts } from "../../../src/session/access.js";

const session = (over: Partial<SessionAccessFacts> = {}): SessionAccessFacts => ({ id: "s1", owner: "ada", accessRoot: null, shares: [], ...over });

describe("roleOf", () => {
  it("gives a key without a user the admin role on every session of its tenant", () => {
    expect(roleOf({ user: null }, session())).toBe("admin");
    expect(roleOf({ user: null }, session({ owner: null }))).toBe("admin");
  });

  it("gives the owner the owner role and another user nothing unless shared", () => {
    expect(roleOf({ user: "ada" }, session())).toBe("owner");
    expect(roleOf({ user: "bob" }, session())).toBeNull();
    expect(roleOf({ user: "bob" }, session({ owner: null }))).toBeNull();
  });

  it("reads shares by name and for everyone, keeping the stronger role", () => {
    expect(roleOf({ user: "bob" }, session({ shares: [{ user: "bob", role: "viewer" }] }))).toBe("viewer");
    expect(roleOf({ user: "bob" }, session({ shares: [{ user: "*", role: "viewer" }] }))).toBe("viewer");
    expect(roleOf({ user: "bob" }, session({ shares: [{ user: "*", role: "driver" }, { user: "bob", role: "viewer" }] }))).toBe("driver");
    expect(roleOf({ user: "cy" }, session({ shares: [{ user: "bob", role: "driver" }] }))).toBeNull();
  });

  it("lets a link view only the session it opens and that session's sub-agents", () => {
    const link = { user: null, link: { id: "lnk_1", sessionId: "s1" } };
    expect(roleOf(link, session())).toBe("viewer");
    expect(roleOf(link, session({ id: "child", accessRoot: "s1" }))).toBe("viewer");
    expect(roleOf(link, session({ id: "s2" }))).toBeNull();
    expect(mayCreate(link)).toBe(false);
    expect(mayCreate({ user: "ada" })).toBe(true);
  });
});

describe("allows", () => {
  it("lets a viewer read, a driver also drive, and only the owner or admin manage", () => {
    expect([allows("viewer", "read"), allows("viewer", "drive"), allows("viewer", "manage")]).toEqual([true, false, false]);
    expect([allows("driver", "read"), allows("driver", "drive"), allows("driver", "manage")]).toEqual([true, true, false]);
    expect([allows("owner", "manage"), allows("admin", "manage")]).toEqual([true, true]);
    expect(allows(null, "read")).toBe(false);
  });

  it("sends questions to owners, admins and drivers, never to viewers", () => {
    expect([answers("owner"), answers("admin"), answers("driver"), answers("viewer"), answers(undefined)]).toEqual([true, true, true, false, false]);
  });
});

describe("requireAccess", () => {
  it("answers no role as an unknown session and too little as read_only", () => {
    const unknown = (() => { try { requireAccess(null, "read", "s1"); } catch (e) { return e; } })() as RequestError;
    expect(unknown.code).toBe(ErrorCode.resourceNotFound);
    expect(unknown.data).toEqual({ detail: "no such session", sessionId: "s1" });
    const ro = (() => { try { requireAccess("viewer", "drive"); } catch (e) { return e; } })() as RequestError;
    expect(ro.code).toBe(ErrorCode.forbidden);
    expect((ro.data as { reason: string }).reason).toBe("read_only");
    expect(requireAccess("driver", "drive")).toBe("driver");
  });
});
