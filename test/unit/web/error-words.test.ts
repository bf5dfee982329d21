import { describe, expect, it } from "vitest";
import { withoutRpcCode } from "../../../web/src/app/state/error-words.js";

describe("withoutRpcCode", () => {
  it("drops a trailing JSON-RPC code and nothing else", () => {
    expect(withoutRpcCode("The editor could not write /p/docs: /p/docs is a directory in the browser workspace [-32602]")).toBe(
      "The editor could not write /p/docs: /p/docs is a directory in the browser workspace",
    );
    expect(withoutRpcCode("File not found: /p/a [-32002]")).toBe("File not found: /p/a");
    expect(withoutRpcCode("exit code [1]")).toBe("exit code [1]");
    expect(withoutRpcCode("see [-32602] above")).toBe("see [-32602] above");
    expect(withoutRpcCode("an application code [-1]")).toBe("an application code [-1]");
  });
});
