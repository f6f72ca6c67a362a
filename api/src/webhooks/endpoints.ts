/**
 * An account's webhook endpoints (the CLI's `webhook ...` commands): create (the secret shown once), list (never a
 * secret), rotate (a new secret shown once; the old one keeps signing for ROTATION_OVERLAP_HOURS), delete, and the
 * deliveries with their attempts. Every change is in the audit log, without the secret.
 */
import { BadRequestError, NotFoundError } from "../domain/errors.js";
import { newId } from "../store/ids.js";
import type { Store } from "../store/index.js";
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "../store/webhooks.js";
import { generateSecret } from "./signature.js";
import { WebhookUrlError, resolveTarget, type TargetOptions } from "./target.js";

/** After a rotation the previous secret still signs (a second signature) this long. */
export const ROTATION_OVERLAP_HOURS = 24;
/** Endpoints per account at most. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
/** Deliveries listed at most. */
export const DELIVERIES_LIST_LIMIT = 100;

/** An endpoint as listed: no secret, only whether a rotated one still signs and until when. */
export type EndpointView = { id: string; url: string; createdAt: string; previousSecretExpiresAt: string | null };

export type DeliveryView = WebhookDelivery & { attemptList: WebhookAttempt[] };

/** The secrets that sign a delivery at `now`: the current one, and the previous one during its overlap. */
export function signingSecrets(endpoint: Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousExpiresAt">, now: Date): string[] {
  const overlap = endpoint.previousSecret !== null && endpoint.previousExpiresAt !== null && endpoint.previousExpiresAt > now.toISOString();
  return overlap ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

export function endpointView(e: WebhookEndpoint, now: Date = new Date()): EndpointView {
  const overlap = e.previousExpiresAt !== null && e.previousExpiresAt > now.toISOString();
  return { id: e.id, url: e.url, createdAt: e.createdAt, previousSecretExpiresAt: overlap ? e.previousExpiresAt : null };
}

/**
 * Creates an endpoint after checking its URL as every delivery will (https, every resolved address public): a bad
 * URL is a 400 and stores nothing. Returns the endpoint and its secret, which is shown this once.
 */
export async function createEndpoint(store: Store, accountId: string, url: string, options: TargetOptions & { by?: string; now?: Date }): Promise<{ endpoint: EndpointView; secret: string }> {
  if (!(await store.accounts.accountExists(accountId))) throw new NotFoundError(`no account ${accountId.slice(0, 64)}`);
  try {
    await resolveTarget(url, options);
  } catch (error) {
    if (error instanceof WebhookUrlError) throw new BadRequestError(`url: ${error.message}`);
    throw error;
  }
  const now = options.now ?? new Date();
  const secret = generateSecret();
  const endpoint: WebhookEndpoint = { id: newId("whk"), accountId, url, secret, previousSecret: null, previousExpiresAt: null, createdAt: now.toISOString(), deletedAt: null };
  await store.tx(async () => {
    if ((await store.webhooks.endpoints(accountId)).length >= MAX_ENDPOINTS_PER_ACCOUNT) throw new BadRequestError(`an account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints`);
    await store.webhooks.insertEndpoint(endpoint);
    await store.audit.record(options.by ?? "operator", "webhook.create", accountId, { endpointId: endpoint.id, host: new URL(url).host }, now.toISOString());
  });
  return { endpoint: endpointView(endpoint, now), secret };
}

export async function listEndpoints(store: Store, accountId: string, now: Date = new Date()): Promise<EndpointView[]> {
  if (!(await store.accounts.accountExists(accountId))) throw new NotFoundError(`no account ${accountId.slice(0, 64)}`);
  return (await store.webhooks.endpoints(accountId)).map((e) => endpointView(e, now));
}

/** A new secret, shown once; the current one becomes the previous and signs too for ROTATION_OVERLAP_HOURS. */
export async function rotateSecret(store: Store, endpointId: string, by = "operator", now: Date = new Date()): Promise<{ endpoint: EndpointView; secret: string }> {
  return store.tx(async () => {
    const current = await liveEndpoint(store, endpointId);
    const secret = generateSecret();
    const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_HOURS * 3_600_000).toISOString();
    // A second rotation within the overlap drops the oldest secret: at most two sign at once.
    await store.webhooks.rotate(endpointId, secret, current.secret, expiresAt);
    await store.audit.record(by, "webhook.rotate", current.accountId, { endpointId, previousSecretExpiresAt: expiresAt }, now.toISOString());
    return { endpoint: endpointView({ ...current, secret, previousSecret: current.secret, previousExpiresAt: expiresAt }, now), secret };
  });
}

/** Deletes an endpoint: nothing more is sent to it (its pending deliveries fail); its history stays listed. */
export async function deleteEndpoint(store: Store, endpointId: string, by = "operator", now: Date = new Date()): Promise<{ endpointId: string; deleted: true; pendingDropped: number }> {
  return store.tx(async () => {
    const current = await liveEndpoint(store, endpointId);
    const pendingDropped = await store.webhooks.delete(endpointId, now.toISOString());
    await store.audit.record(by, "webhook.delete", current.accountId, { endpointId, pendingDropped }, now.toISOString());
    return { endpointId, deleted: true as const, pendingDropped };
  });
}

/** An endpoint's deliveries (newest first) with their attempts. */
export async function listDeliveries(store: Store, endpointId: string): Promise<DeliveryView[]> {
  if (!(await store.webhooks.endpoint(endpointId))) throw new NotFoundError(`no webhook endpoint ${endpointId.slice(0, 64)}`);
  const views: DeliveryView[] = [];
  for (const d of await store.webhooks.deliveries(endpointId, DELIVERIES_LIST_LIMIT)) views.push({ ...d, attemptList: await store.webhooks.attempts(d.id) });
  return views;
}

/**
 * The account's endpoint, deleted ones too (their deliveries stay listed), for a door that knows the account (the
 * portal) before it calls rotateSecret, deleteEndpoint or listDeliveries, which take only an endpoint id. Another
 * account's id is not found, in the same words as a missing one, so its existence does not show.
 */
export async function ownEndpoint(store: Store, accountId: string, endpointId: string, now: Date = new Date()): Promise<EndpointView & { deletedAt: string | null }> {
  const endpoint = await store.webhooks.endpoint(endpointId);
  if (!endpoint || endpoint.accountId !== accountId) throw new NotFoundError(`no webhook endpoint ${endpointId.slice(0, 64)}`);
  return { ...endpointView(endpoint, now), deletedAt: endpoint.deletedAt };
}

async function liveEndpoint(store: Store, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await store.webhooks.endpoint(endpointId);
  if (!endpoint || endpoint.deletedAt !== null) throw new NotFoundError(`no webhook endpoint ${endpointId.slice(0, 64)}`);
  return endpoint;
}
