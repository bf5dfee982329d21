/** The types of `web-build-stamp.mjs` (plain JavaScript: see its module comment). */

/** What the web build reads (directories or files, relative to the repo root); a change to any of them rebuilds. */
export declare const WEB_BUILD_INPUTS: readonly string[];

/** Hash of every file under `inputs` (directories or files), by path relative to `root` and contents. */
export declare function webBuildFingerprint(root: string, inputs: readonly string[]): string;

/** True when the stamp holds `fingerprint` and every expected output exists. */
export declare function isWebBuildFresh(stampPath: string, fingerprint: string, outputs: readonly string[]): boolean;

export declare function writeWebBuildStamp(stampPath: string, fingerprint: string): void;

/** Whether `root`'s web/dist is built from its current sources; `markBuilt` records that it now is. */
export declare function webDistState(root: string): { fresh: boolean; markBuilt: () => void };
