import { describe, expect, it } from "vitest";
import { MAX_HELD_NOTIFICATIONS, McpNotificationScope } from "../src/mcp-notification-scope.js";

const changed = { method: "notifications/tools/list_changed" };

describe("McpNotificationScope", () => {
  it("scopes a notification to the newest request the server is answering", () => {
    const scope = new McpNotificationScope();
    scope.started("s1", "r1");
    scope.started("s1", "r2");
    expect(scope.notified("s1", { method: "notifications/message", params: { level: "info", data: "x" } })).toEqual({
      serverId: "s1",
      requestId: "r2",
      method: "notifications/message",
      params: { level: "info", data: "x" },
    });
    scope.ended("s1", "r2");
    expect(scope.notified("s1", changed)).toEqual({ serverId: "s1", requestId: "r1", method: "notifications/tools/list_changed" });
  });

  it("never uses an ended request's id: an idle server's notifications wait for its next request", () => {
    const scope = new McpNotificationScope();
    scope.started("s1", "r1");
    scope.ended("s1", "r1");
    expect(scope.notified("s1", changed)).toBeNull();
    expect(scope.notified("s2", changed)).toBeNull();
    expect(scope.started("s1", "r2")).toEqual([{ serverId: "s1", requestId: "r2", method: "notifications/tools/list_changed" }]);
    expect(scope.started("s1", "r3")).toEqual([]);
  });

  it("keeps the newest notifications of an idle server, and none of a stopped one", () => {
    const scope = new McpNotificationScope();
    for (let i = 0; i < MAX_HELD_NOTIFICATIONS + 5; i++) scope.notified("s1", { method: "notifications/message", params: { data: i } });
    const flushed = scope.started("s1", "r1");
    expect(flushed).toHaveLength(MAX_HELD_NOTIFICATIONS);
    expect(flushed[0]!.params).toEqual({ data: 5 });
    scope.ended("s1", "r1");
    scope.notified("s1", changed);
    scope.forget("s1");
    expect(scope.started("s1", "r2")).toEqual([]);
  });

  it("keeps a waiting list_changed through any amount of logging, once per method, and drops log messages before other notifications", () => {
    const scope = new McpNotificationScope();
    const progress = { method: "notifications/progress", params: { progressToken: "p", progress: 1 } };
    scope.notified("s1", changed);
    scope.notified("s1", progress);
    scope.notified("s1", { method: "notifications/prompts/list_changed" });
    for (let i = 0; i < 100; i++) scope.notified("s1", { method: "notifications/message", params: { data: i } });
    scope.notified("s1", changed);
    const flushed = scope.started("s1", "r1");
    expect(flushed).toHaveLength(MAX_HELD_NOTIFICATIONS);
    const methods = flushed.map((n) => n.method);
    expect(methods.filter((m) => m === "notifications/tools/list_changed")).toHaveLength(1);
    expect(methods.slice(0, 2)).toEqual(["notifications/progress", "notifications/prompts/list_changed"]);
    expect(methods.at(-1)).toBe("notifications/tools/list_changed");
    // The newest log messages are the ones kept.
    expect(flushed.at(-2)!.params).toEqual({ data: 99 });
    scope.ended("s1", "r1");
    // With no log messages to drop, the oldest other one goes, never a list_changed.
    scope.notified("s1", changed);
    for (let i = 0; i < 40; i++) scope.notified("s1", { ...progress, params: { progressToken: "p", progress: i } });
    const second = scope.started("s1", "r2");
    expect(second[0]!.method).toBe("notifications/tools/list_changed");
    expect(second.at(-1)!.params).toEqual({ progressToken: "p", progress: 39 });
  });
});
