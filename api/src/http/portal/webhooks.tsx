/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// Webhook endpoints (owners only, as keys and team): list, add, rotate the signing secret, delete, and an endpoint's
// deliveries with their attempts. Every action calls webhooks/endpoints.ts, as the CLI does; the URL rules, the
// audit entries and the secret's one showing are the domain's. The owner check is domain/team.ts's requireOwner,
// and ownEndpoint keeps every id to the signed-in account (another account's id is a 404, as a missing one).
import { Hono, type Context } from "hono";
import type { PullUrlPolicy } from "../../domain/campaigns.js";
import { BadRequestError, ServiceError } from "../../domain/errors.js";
import { requireOwner } from "../../domain/team.js";
import type { Store } from "../../store/index.js";
import type { WebhookAttempt } from "../../store/webhooks.js";
import { createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, ownEndpoint, rotateSecret, ROTATION_OVERLAP_HOURS, type DeliveryView, type EndpointView } from "../../webhooks/endpoints.js";
import { FormError, Section, TextField, errorsFrom, utc, type FieldErrors } from "./forms.js";
import { field, signedIn, type PortalEnv, type SignedIn } from "./guard.js";
import { Csrf, Once, PortalLayout, type Notice } from "./Layout.js";
import { REPEATED_FORM, runOnce } from "./once.js";
import { actorOf, viewerOf } from "./team.js";

export type WebhookScreensDeps = { store: Store; pullPolicy?: PullUrlPolicy };

type Owner = { session: SignedIn; by: string };

/** A time to the second (attempts can be seconds apart): "2026-11-26 14:55:03 UTC". */
const utcSeconds = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** A new secret, shown this once (as a new API key is on the keys page), with a copy button when scripts run. */
function SecretShown(props: { secret: string }) {
  return (
    <section aria-labelledby="new-secret">
      <h2 id="new-secret">The signing secret</h2>
      <p>Copy it now: it is shown this once. Verify each delivery's webhook-signature with it (Standard Webhooks).</p>
      <code class="secret" id="new-secret-value">
        {props.secret}
      </code>
      <p>
        <button type="button" data-copy="new-secret-value" hidden>
          Copy
        </button>
      </p>
    </section>
  );
}

function PreviousSecret(props: { endpoint: EndpointView }) {
  const until = props.endpoint.previousSecretExpiresAt;
  return <>{until ? `still signs too, until ${utc(until)}` : "none"}</>;
}

/** A confirmation box for a form (the campaign's "end" form does the same). */
function Confirm(props: { id: string; text: string; error: string | undefined }) {
  return (
    <div class="field check">
      <input type="checkbox" id={props.id} name="confirm" value="yes" aria-describedby={props.error ? `${props.id}-error` : undefined} aria-invalid={props.error ? "true" : undefined} />{" "}
      <label for={props.id} class="inline-label">
        {props.text}
      </label>
      {props.error ? (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

function Attempt(props: { attempt: WebhookAttempt }) {
  const a = props.attempt;
  const outcome = a.httpStatus !== null ? `HTTP ${a.httpStatus}` : (a.error ?? "no answer");
  return (
    <li>
      {utcSeconds(a.at)}: {outcome}, {a.durationMs} ms
    </li>
  );
}

function DeliveryRow(props: { delivery: DeliveryView }) {
  const d = props.delivery;
  const state = d.status === "delivered" ? `delivered ${utc(d.deliveredAt)}` : d.status === "pending" ? `pending${d.nextAttemptAt ? `, next try ${utcSeconds(d.nextAttemptAt)}` : ""}` : "failed";
  return (
    <tr>
      <td>
        {d.eventType}
        <span class="hint">
          {utc(d.createdAt)}, <code class="detail">{d.subjectId}</code>
        </span>
      </td>
      <td>{state}</td>
      <td>{d.attemptList.length === 0 ? "none yet" : <ol>{d.attemptList.map((a) => <Attempt attempt={a} />)}</ol>}</td>
    </tr>
  );
}

export function webhookRoutes({ store, pullPolicy = { allowHttpLoopback: false } }: WebhookScreensDeps) {
  const app = new Hono<PortalEnv>();

  /** The signed-in owner and the name the audit log records; a member is refused (403) before anything is read. */
  const owner = async (c: Context<PortalEnv>): Promise<Owner> => {
    const session = signedIn(c);
    return { session, by: await requireOwner(store, session.accountId, actorOf(session), "manage webhook endpoints") };
  };

  const listPage = async (session: SignedIn, extra: { secret?: string; notice?: Notice; errors?: FieldErrors; url?: string } = {}) => {
    const viewer = viewerOf(session);
    const endpoints = await listEndpoints(store, session.accountId);
    const errors = extra.errors ?? {};
    return (
      <PortalLayout title="Webhooks" viewer={viewer} notice={extra.notice ?? null}>
        {extra.secret ? <SecretShown secret={extra.secret} /> : null}
        <p>The service posts each drawing's and guarantee's changes to these URLs, signed with the endpoint's secret.</p>
        {endpoints.length === 0 ? <p>No endpoints yet.</p> : null}
        {endpoints.map((e) => (
          <section class="card" aria-labelledby={`e-${e.id}`}>
            <h3 id={`e-${e.id}`}>
              <code class="detail">{e.url}</code>
            </h3>
            <dl class="facts">
              <dt>Created</dt>
              <dd>{utc(e.createdAt)}</dd>
              <dt>Previous secret</dt>
              <dd>
                <PreviousSecret endpoint={e} />
              </dd>
            </dl>
            <p>
              <a href={`/portal/webhooks/${e.id}`} aria-label={`Deliveries, rotate or delete: ${e.url}`}>
                Deliveries, rotate or delete
              </a>
            </p>
          </section>
        ))}
        <Section id="add" title="Add an endpoint">
          <form method="post" action="/portal/webhooks">
            <Csrf token={viewer.csrf} />
            <Once />
            <FormError errors={errors} />
            <TextField name="url" label="URL" type="url" inputmode="url" value={extra.url} required errors={errors} hint="https; the host must resolve to public addresses only." />
            <p>
              <button type="submit">Add the endpoint</button>
            </p>
          </form>
        </Section>
      </PortalLayout>
    );
  };

  const endpointPage = async (session: SignedIn, endpointId: string, extra: { secret?: string; notice?: Notice; errors?: FieldErrors } = {}) => {
    const viewer = viewerOf(session);
    const endpoint = await ownEndpoint(store, session.accountId, endpointId);
    const deliveries = await listDeliveries(store, endpoint.id);
    const errors = extra.errors ?? {};
    const base = `/portal/webhooks/${endpoint.id}`;
    return (
      <PortalLayout title="Webhook endpoint" viewer={viewer} notice={extra.notice ?? null}>
        <p>
          <a href="/portal/webhooks">All endpoints</a>
        </p>
        {extra.secret ? <SecretShown secret={extra.secret} /> : null}
        <dl class="facts">
          <dt>URL</dt>
          <dd>
            <code class="detail">{endpoint.url}</code>
          </dd>
          <dt>Created</dt>
          <dd>{utc(endpoint.createdAt)}</dd>
          {endpoint.deletedAt ? (
            <>
              <dt>Deleted</dt>
              <dd>{utc(endpoint.deletedAt)}: nothing more is sent to it</dd>
            </>
          ) : (
            <>
              <dt>Previous secret</dt>
              <dd>
                <PreviousSecret endpoint={endpoint} />
              </dd>
            </>
          )}
        </dl>
        {endpoint.deletedAt ? null : (
          <>
            <Section id="rotate" title="Rotate the secret">
              <form method="post" action={`${base}/rotate`}>
                <Csrf token={viewer.csrf} />
                <Once />
                <Confirm id="f-rotate-confirm" error={errors.rotate} text={`I understand: a new secret signs from now on, and the current one also signs for ${ROTATION_OVERLAP_HOURS} hours, then stops.`} />
                <button type="submit" class="secondary">
                  Rotate the secret
                </button>
              </form>
            </Section>
            <Section id="delete" title="Delete the endpoint">
              <form method="post" action={`${base}/delete`}>
                <Csrf token={viewer.csrf} />
                <Confirm id="f-delete-confirm" error={errors.delete} text="I understand: nothing more is sent to this URL, and its pending deliveries fail. Its history stays." />
                <button type="submit" class="danger">
                  Delete the endpoint
                </button>
              </form>
            </Section>
          </>
        )}
        <Section id="deliveries" title="Deliveries">
          {deliveries.length === 0 ? <p>None yet: a delivery is made for each event after the endpoint was added.</p> : null}
          <div class="scroll">
            <table>
              <caption class="hint">The latest deliveries, newest first, with every attempt.</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.map((d) => (
                  <DeliveryRow delivery={d} />
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      </PortalLayout>
    );
  };

  app.get("/webhooks", async (c) => c.html(await listPage((await owner(c)).session)));

  app.post("/webhooks", async (c) => {
    const { session, by } = await owner(c);
    const url = field(c, "url").trim();
    try {
      const outcome = await runOnce(c, store, session.accountId, () => createEndpoint(store, session.accountId, url, { allowLoopback: pullPolicy.allowHttpLoopback, by }));
      if (outcome.repeated) return c.html(await listPage(session, { notice: { kind: "error", text: REPEATED_FORM } }), 409);
      const created = outcome.value;
      return c.html(await listPage(session, { secret: created.secret, notice: { kind: "ok", text: `Endpoint added: deliveries to ${created.endpoint.url} start with the next event.` } }));
    } catch (error) {
      // A URL refused (or the account's limit) shows on the form with what was typed; nothing was stored.
      if (error instanceof BadRequestError) return c.html(await listPage(session, { errors: errorsFrom(error.detail, { url: "url" }), url }), 400);
      throw error;
    }
  });

  app.get("/webhooks/:id", async (c) => c.html(await endpointPage((await owner(c)).session, c.req.param("id"))));

  /** An unticked confirmation shows the endpoint page again with the box's error, nothing changed. */
  const unconfirmed = async (c: Context<PortalEnv>, session: SignedIn, id: string, box: "rotate" | "delete") =>
    c.html(await endpointPage(session, id, { errors: { [box]: `Tick the box to confirm: ${box === "rotate" ? "rotating replaces the secret" : "deleting cannot be undone"}.` } }), 400);

  app.post("/webhooks/:id/rotate", async (c) => {
    const { session, by } = await owner(c);
    const endpoint = await ownEndpoint(store, session.accountId, c.req.param("id"));
    if (field(c, "confirm") !== "yes") return unconfirmed(c, session, endpoint.id, "rotate");
    const outcome = await runOnce(c, store, session.accountId, () => rotateSecret(store, endpoint.id, by));
    if (outcome.repeated) return c.html(await endpointPage(session, endpoint.id, { notice: { kind: "error", text: REPEATED_FORM } }), 409);
    const rotated = outcome.value;
    const until = utc(rotated.endpoint.previousSecretExpiresAt);
    return c.html(await endpointPage(session, endpoint.id, { secret: rotated.secret, notice: { kind: "ok", text: `Secret rotated: the previous one also signs until ${until}.` } }));
  });

  app.post("/webhooks/:id/delete", async (c) => {
    const { session, by } = await owner(c);
    const endpoint = await ownEndpoint(store, session.accountId, c.req.param("id"));
    if (field(c, "confirm") !== "yes") return unconfirmed(c, session, endpoint.id, "delete");
    try {
      await deleteEndpoint(store, endpoint.id, by);
    } catch (error) {
      // Deleted already (a second tab): the list says so rather than an error page.
      if (!(error instanceof ServiceError && error.status === 404)) throw error;
    }
    return c.html(await listPage(session, { notice: { kind: "ok", text: `Endpoint ${endpoint.url} deleted: nothing more is sent to it.` } }));
  });

  return app;
}
