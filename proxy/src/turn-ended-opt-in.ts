/**
 * `_hermes/turn_ended` is opt-in (`clientCapabilities._meta.hermes.turnEnded`).
 * The proxy always asks for it, since its reconnect tracker settles prompts
 * with it, and passes it on to the editor only if the editor asked itself: a
 * generic ACP client would show it as an unknown notification every turn.
 * @module
 */
import { requestFrame, TURN_ENDED, wantsTurnEnded, withTurnEndedCapability, type Frame, type IncomingRequest } from "@hermes-edge/protocol";

export class TurnEndedOptIn {
  #editorAsked = false;

  /** The editor's `initialize`, rewritten to ask for `_hermes/turn_ended`: its message and the frame to send. */
  initialize(message: IncomingRequest): { message: IncomingRequest; text: string } {
    const params = (message.params ?? {}) as { clientCapabilities?: unknown };
    this.#editorAsked = wantsTurnEnded(params.clientCapabilities);
    const rewritten = { ...message, params: withTurnEndedCapability(message.params ?? {}) };
    return { message: rewritten, text: requestFrame(rewritten.id, rewritten.method, rewritten.params) };
  }

  /** Whether a service frame the tracker let through goes on to the editor. */
  forward(frame: Frame): boolean {
    return this.#editorAsked || frame.kind !== "notification" || frame.message.method !== TURN_ENDED;
  }
}
