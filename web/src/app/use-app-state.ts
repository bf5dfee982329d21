/** Re-renders a component whenever the controller's state changes. */
import { useEffect, useReducer } from "preact/hooks";
import type { AppController } from "./state/app-controller.js";
import type { AppState } from "./state/app-state.js";

export function useAppState(controller: AppController): AppState {
  const [, rerender] = useReducer((n: number, _: undefined) => n + 1, 0);
  useEffect(() => controller.subscribe(() => rerender(undefined)), [controller]);
  return controller.getState();
}
