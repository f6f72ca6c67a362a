// Types for build-service.mjs (plain JavaScript so that `npm run admin` and the CLI's bin run it without tsx).
export declare const DIST_DIR: string;
export declare const SERVICE_ENTRY: string;
export declare const CLI_ENTRY: string;
export declare const PROOF_WORKER_ENTRY: string;
export declare function buildService(): Promise<{ service: string; cli: string }>;
