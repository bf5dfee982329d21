/**
 * Opaque list cursors: the position after the last row of a page. Clients must
 * not parse them; a tampered or foreign cursor is rejected, never guessed at.
 */
import * as z from "zod";

const zPosition = z.object({ u: z.number().int().nonnegative(), i: z.string().min(1) });

export interface CursorPosition {
  updatedAt: number;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return btoa(JSON.stringify({ u: position.updatedAt, i: position.id })).replace(/=+$/, "");
}

export function decodeCursor(cursor: string): CursorPosition {
  try {
    const parsed = zPosition.parse(JSON.parse(atob(cursor)));
    return { updatedAt: parsed.u, id: parsed.i };
  } catch {
    throw new RangeError("invalid cursor");
  }
}
