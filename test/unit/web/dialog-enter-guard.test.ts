import { describe, expect, it } from "vitest";
import { DIALOG_ENTER_QUIET_MS, DialogEnterGuard } from "../../../web/src/app/state/dialog-enter-guard.js";

const enter = (timeStamp: number, repeat = false) => ({ key: "Enter", repeat, timeStamp });

describe("DialogEnterGuard", () => {
  it("ignores an Enter pressed again at once after the one that answered a dialog, and lets a later one through", () => {
    const guard = new DialogEnterGuard();
    guard.sawKeydown(enter(1000), true);
    expect(guard.swallows(enter(1150))).toBe(true);
    // Each Enter of the burst keeps it going: the user has not stopped yet.
    expect(guard.swallows(enter(1150 + DIALOG_ENTER_QUIET_MS - 1))).toBe(true);
    expect(guard.swallows(enter(1150 + 2 * DIALOG_ENTER_QUIET_MS))).toBe(false);
  });

  it("ignores the repeats of an Enter held since the dialog, however long it is held", () => {
    const guard = new DialogEnterGuard();
    guard.sawKeydown(enter(0), true);
    for (const t of [600, 2000, 5000]) expect(guard.swallows(enter(t, true))).toBe(true);
    // Released and pressed again after a pause: the user's own.
    expect(guard.swallows(enter(5000 + DIALOG_ENTER_QUIET_MS))).toBe(false);
  });

  it("leaves alone Enters begun in the prompt box, their repeats, other keys and Enters outside dialogs", () => {
    const guard = new DialogEnterGuard();
    guard.sawKeydown(enter(0), false);
    expect(guard.swallows(enter(10))).toBe(false);
    expect(guard.swallows(enter(600, true))).toBe(false);
    guard.sawKeydown(enter(1000), true);
    expect(guard.swallows({ key: "a", repeat: false, timeStamp: 1010 })).toBe(false);
  });
});
