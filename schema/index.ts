export * from "./sessions.js";
export * from "./permission-rules.js";
export * from "./segments.js";
