/** `/v1/admin/usage?groupBy=user`: each user's usage beside the tenant's; admin keys' sessions count only in the tenant's. */
import { describe, expect, it } from "vitest";
import { mockScript, uniqueKey } from "./acp-test-client.js";
import { admin, json } from "./admin-client.js";
import { clientOf, team } from "./people-support.js";

async function turn(token: string, usage: { prompt_tokens: number; completion_tokens: number }) {
  const client = await clientOf(token);
  const sessionId = await client.newSession("/work/usage");
  const key = uniqueKey();
  await mockScript(key, [{ text: "ok", usage }]);
  await client.prompt(sessionId, `go [[mock:${key}]]`).response;
  client.close();
}

describe("usage grouped by user", () => {
  it("lists each user's days and total, and leaves the tenant's report as it was without groupBy", async () => {
    const { tenant, keys } = await team();
    await turn(keys.ada, { prompt_tokens: 100, completion_tokens: 10 });
    await turn(keys.ada, { prompt_tokens: 100, completion_tokens: 10 });
    await turn(keys.bob, { prompt_tokens: 7, completion_tokens: 3 });
    await turn(keys.admin, { prompt_tokens: 1, completion_tokens: 1 });
    const grouped = async () => json(admin(`/usage?tenant=${tenant}&groupBy=user`));
    await expect.poll(async () => (await grouped()).total.turns, { timeout: 15_000 }).toBe(4);
    const report = await grouped();
    expect(report.users.map((u: { user: string; total: { turns: number; inputTokens: number } }) => [u.user, u.total.turns, u.total.inputTokens])).toEqual([
      ["ada", 2, 200],
      ["bob", 1, 7],
    ]);
    expect(report.users[0].days).toHaveLength(1);
    const plain = await json(admin(`/usage?tenant=${tenant}`));
    expect(plain.users).toBeUndefined();
    expect(plain.total.inputTokens).toBe(208);
    expect((await admin(`/usage?tenant=${tenant}&groupBy=model`)).status).toBe(400);
  });
});
