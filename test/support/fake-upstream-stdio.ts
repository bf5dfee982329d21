/**
 * The fake upstream agent on stdio, as the proxy runs a local one
 * (`--upstream fake="node <this file built by bundled-script.ts>"`).
 * `upstream:crash` exits the process with code 3. With `FAKE_UPSTREAM_LOG`
 * set, what it observes is appended there as JSON lines, and each start as
 * `{"kind":"start","pid":…}`.
 */
import { appendFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { fakeUpstreamAgent } from "./fake-upstream-agent.js";

const logFile = process.env["FAKE_UPSTREAM_LOG"];
const record = (event: object) => {
  if (logFile) appendFileSync(logFile, JSON.stringify(event) + "\n");
};
record({ kind: "start", pid: process.pid });
const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
fakeUpstreamAgent({ crash: () => process.exit(3), record }).connect(stream);
