export * from "./sessions.js";
export * from "./permission-rules.js";
export * from "./segments.js";
export * from "./project-memory.js";
export * from "./search-entries.js";
export * from "./api-keys.js";
export * from "./tenant-usage.js";
