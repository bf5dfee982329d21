import { describe, expect, it } from "vitest";
import { workspaceFailureCause } from "../../../web/src/app/workspace/workspace-failure.js";

describe("workspaceFailureCause", () => {
  it("names the case behind the browser file system's DOMException instead of its text", () => {
    const blocked = new DOMException("An attempt was made to break through the security policy of the user agent.", "SecurityError");
    expect(workspaceFailureCause(blocked)).toBe("This browser does not let the page use its private file system (site data may be blocked for this site).");
    expect(workspaceFailureCause(new DOMException("x", "QuotaExceededError"))).toBe("The browser's storage for this site is full.");
    expect(workspaceFailureCause(new DOMException("x", "NotFoundError"))).toBe("A file or folder was removed while the list was being read.");
  });

  it("keeps the text of any other failure as one sentence", () => {
    expect(workspaceFailureCause(new DOMException("The operation failed for an unknown transient reason.", "UnknownError"))).toBe(
      "The operation failed for an unknown transient reason.",
    );
    expect(workspaceFailureCause(new Error("disk on fire"))).toBe("Disk on fire.");
    expect(workspaceFailureCause("")).toBe("The browser gave no reason.");
  });
});
