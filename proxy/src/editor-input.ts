/**
 * The editor's side of the wire, inbound: stdin, one JSON-RPC message per
 * line. A line too long or not JSON-RPC is answered here (the editor gets the
 * error it deserves, with id null when the id could not be read) and never
 * reaches the bridge.
 * @module
 */
import { decodeFrame, errorFrame, toErrorResponse, type Frame } from "@hermes-edge/protocol";
import type { EditorOutput } from "./editor-output.js";
import { malformedMessageError, messageTooLargeError } from "./failures.js";
import { LineDecoder, type DecodedLine } from "./line-framing.js";
import type { Logger } from "./log.js";

export interface EditorInputEvents {
  frame(frame: Frame, text: string): void;
  /** stdin ended: the editor is gone. */
  end(): void;
}

export function readEditor(input: NodeJS.ReadableStream, editor: EditorOutput, log: Logger, events: EditorInputEvents): void {
  const decoder = new LineDecoder();
  const onLine = (line: DecodedLine): void => {
    if (line.kind === "too_large") {
      log.warn(`a message from the editor exceeds ${line.maxBytes} bytes; dropped`);
      editor.write(errorFrame(null, messageTooLargeError(line.maxBytes)));
      return;
    }
    const decoded = decodeFrame(line.text);
    if (decoded.kind === "invalid") {
      log.warn(`malformed frame from the editor (${decoded.error.message}); answered with ${decoded.error.code}`);
      editor.write(errorFrame(decoded.id, malformedMessageError(toErrorResponse(decoded.error))));
      return;
    }
    events.frame(decoded, line.text);
  };
  input.on("data", (chunk: Buffer | string) => {
    for (const line of decoder.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) onLine(line);
  });
  input.on("end", () => {
    for (const line of decoder.end()) onLine(line);
    events.end();
  });
}
