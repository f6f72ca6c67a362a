// Starts a TypeScript module in a worker thread: workers do not inherit tsx's loader from --import.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
