/**
 * Shows a dialog as modal with focus on its heading (not on a button or a
 * field: keys meant for the prompt box must not answer it), and closes it
 * while it is still in the page. Closed there, the browser gives focus back
 * to where the user was, usually the prompt box; removed while open, it would
 * leave focus on the page's body. Hence a layout effect: preact runs its
 * cleanup before the element is removed, a passive effect's only after paint.
 * @module
 */
import type { RefObject } from "preact";
import { useLayoutEffect } from "preact/hooks";

export function useModalDialog(dialog: RefObject<HTMLDialogElement | null>, heading: RefObject<HTMLElement | null>, askId: number): void {
  useLayoutEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    heading.current?.focus();
    return () => el?.close();
  }, [askId]);
}
