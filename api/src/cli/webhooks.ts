/**
 * `prizedraw webhook create|list|rotate|delete|deliveries`: an account's webhook endpoints (webhooks/endpoints.ts).
 * Async like every store call (and create resolves the URL's host to check its addresses). A secret is printed
 * only by create and rotate, once.
 */
import type { Config } from "../config.js";
import { BadRequestError } from "../domain/errors.js";
import type { Store } from "../store/index.js";
import { createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, rotateSecret } from "../webhooks/endpoints.js";

export type WebhookCommandValues = { account?: string | undefined; url?: string | undefined };

export function isWebhookCommand(name: string): boolean {
  return name.startsWith("webhook ");
}

export async function runWebhookCommand(
  name: string,
  args: readonly string[],
  values: WebhookCommandValues,
  store: Store,
  config: Pick<Config, "env"> & Partial<Pick<Config, "pullAllowHttpLoopback">>,
): Promise<Record<string, unknown>> {
  const allowLoopback = config.env === "test" && config.pullAllowHttpLoopback === true;
  const required = (flag: keyof WebhookCommandValues): string => {
    const value = values[flag];
    if (!value) throw new BadRequestError(`--${flag} is required`);
    return value;
  };
  const endpointId = (): string => {
    if (!args[0]) throw new BadRequestError(`usage: prizedraw ${name} ENDPOINT_ID`);
    return args[0];
  };
  switch (name) {
    case "webhook create": {
      const created = await createEndpoint(store, required("account"), required("url"), { allowLoopback });
      return { endpoint: created.endpoint, secret: created.secret, note: "the secret is shown this once: keep it to verify deliveries" };
    }
    case "webhook list":
      return { endpoints: await listEndpoints(store, required("account")) };
    case "webhook rotate": {
      const rotated = await rotateSecret(store, endpointId());
      return { endpoint: rotated.endpoint, secret: rotated.secret, note: "the new secret is shown this once; the previous one also signs until previousSecretExpiresAt" };
    }
    case "webhook delete":
      return await deleteEndpoint(store, endpointId());
    case "webhook deliveries":
      return { endpointId: endpointId(), deliveries: await listDeliveries(store, endpointId()) };
    default:
      throw new BadRequestError(`unknown command ${name}`);
  }
}
