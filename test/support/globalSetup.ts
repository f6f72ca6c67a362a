// Vitest's global setup: bundles the service and the CLI once per run (scripts/build-service.mjs), so every test
// starts them from api/dist as `npm start` does, never from a bundle older than the source.
import { buildService } from "../../scripts/build-service.mjs";

export default async function setup(): Promise<void> {
  await buildService();
}
