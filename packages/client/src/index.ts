import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths } from "./schema.js";
export { signWebhook, verifyWebhook, WebhookVerificationError, WEBHOOK_TOLERANCE_SECONDS } from "./webhooks.js";
export type { VerifyWebhookOptions, WebhookEvent, WebhookEventType, WebhookHeaders } from "./webhooks.js";

/** A client of the partner API: every path, parameter, body and answer typed from the service's OpenAPI document. */
export type PrizeDrawClient = Client<paths>;

export type PrizeDrawClientOptions = {
  /** The service, e.g. `https://draws.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** The account's API key (`pd_live_...` or `pd_test_...`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Another fetch (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
};

/**
 * Creates a typed client. Calls answer `{ data, error, response }`: `error` is the service's `{ error, detail }` for
 * any non-2xx status. To retry a POST safely, send the same `Idempotency-Key` header each time:
 *
 * ```ts
 * const client = createPrizeDrawClient({ baseUrl, apiKey });
 * const { data, error } = await client.POST("/api/v1/campaigns/{slug}/drawings/{drawingId}/winners", {
 *   params: { path: { slug, drawingId }, header: { "Idempotency-Key": "winners-2026-11-26" } },
 *   body: { winners: ["u-1", "u-2"] },
 * });
 * ```
 */
export function createPrizeDrawClient(options: PrizeDrawClientOptions): PrizeDrawClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ""), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${options.apiKey}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** The id the service gave a request: quote it to support. */
export function requestIdOf(response: Response): string | null {
  return response.headers.get("Request-Id");
}
