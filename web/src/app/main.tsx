/** Entry point of the web client at `/`: mounts the app and signs in with a kept key. */
import { render } from "preact";
import { App } from "./components/app.js";
import { AppController } from "./state/app-controller.js";
import { loadKey } from "./state/key-store.js";
import { readLinkFragment } from "@hermes-edge/protocol";

const controller = new AppController();
render(<App controller={controller} />, document.getElementById("app")!);
// A viewer link (`#session=…&link=…`) opens its session read-only; its secret stays in the fragment.
const link = readLinkFragment(location.hash);
const kept = loadKey();
if (link) void controller.openLink(link.token, link.sessionId);
else if (kept) void controller.signIn(kept.key, kept.remembered);
