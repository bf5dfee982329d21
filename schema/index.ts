export * from "./sessions.js";
