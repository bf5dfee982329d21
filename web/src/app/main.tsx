/** Entry point of the web client at `/`: mounts the app and signs in with a kept key. */
import { render } from "preact";
import { App } from "./components/app.js";
import { AppController } from "./state/app-controller.js";
import { loadKey } from "./state/key-store.js";

const controller = new AppController();
render(<App controller={controller} />, document.getElementById("app")!);
const kept = loadKey();
if (kept) void controller.signIn(kept.key, kept.remembered);
