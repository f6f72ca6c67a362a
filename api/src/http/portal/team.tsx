/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// Team and API keys (owners only, spec Authentication 2): the pages and every action call domain/team.ts, which
// refuses a member who is not an owner, so the server refuses them whatever the page shows.
import { Hono, type Context } from "hono";
import type { Environment } from "../../config.js";
import { ServiceError } from "../../domain/errors.js";
import { TooManyInvitesError, inviteMember } from "../../domain/portal.js";
import { addMember, createKey, listKeys, listTeam, removeMember, revokeKey, type Actor } from "../../domain/team.js";
import type { Mailer } from "../../mail/mailer.js";
import type { Role } from "../../store/accounts.js";
import type { Store } from "../../store/index.js";
import { field, signedIn, type PortalEnv, type SignedIn } from "./guard.js";
import { Csrf, Once, PortalLayout, type Notice, type Viewer } from "./Layout.js";
import { REPEATED_FORM, runOnce } from "./once.js";

export type TeamDeps = { store: Store; mailer: Mailer; publicBaseUrl: string; env: Environment };

export const viewerOf = (session: SignedIn): NonNullable<Viewer> => ({ email: session.email, role: session.member.role, accountId: session.accountId, csrf: session.csrfToken });
export const actorOf = (session: SignedIn): Actor => ({ kind: "member", email: session.email });

function RoleSelect(props: { id: string; value?: Role }) {
  return (
    <select id={props.id} name="role">
      <option value="member" selected={props.value !== "owner"}>
        member (campaigns)
      </option>
      <option value="owner" selected={props.value === "owner"}>
        owner (also team, keys, logo and links)
      </option>
    </select>
  );
}

export function teamRoutes({ store, mailer, publicBaseUrl, env }: TeamDeps) {
  const app = new Hono<PortalEnv>();
  const linkUrl = (token: string) => `${publicBaseUrl}/portal/auth?token=${encodeURIComponent(token)}`;

  const teamPage = async (session: SignedIn, notice: Notice = null) => {
    const viewer = viewerOf(session);
    const team = await listTeam(store, session.accountId, actorOf(session));
    return (
        <PortalLayout title="Team" viewer={viewer} notice={notice}>
          <div class="scroll">
            <table>
              <caption class="hint">Owners manage the team, API keys, logo and links; members run campaigns.</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Change</th>
                </tr>
              </thead>
              <tbody>
                {team.map((m) => (
                  <tr>
                    <td>{m.email}</td>
                    <td>{m.role}</td>
                    <td>
                      <form method="post" action="/portal/team/role" class="inline">
                        <Csrf token={viewer.csrf} />
                        <input type="hidden" name="email" value={m.email} />
                        <input type="hidden" name="role" value={m.role === "owner" ? "member" : "owner"} />
                        <button type="submit" class="secondary">
                          Make {m.role === "owner" ? "member" : "owner"}
                        </button>
                      </form>{" "}
                      <form method="post" action="/portal/team/remove" class="inline">
                        <Csrf token={viewer.csrf} />
                        <input type="hidden" name="email" value={m.email} />
                        <button type="submit" class="danger" aria-label={`Remove ${m.email}`}>
                          Remove
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Invite someone</h2>
          <form method="post" action="/portal/team/invite">
            <Csrf token={viewer.csrf} />
            <label for="invite-email">Email address</label>
            <input id="invite-email" name="email" type="email" autocomplete="off" required />
            <label for="invite-role">Role</label>
            <RoleSelect id="invite-role" />
            <p>
              <button type="submit">Send the invite</button>
            </p>
          </form>
        </PortalLayout>
    );
  };

  app.get("/team", async (c) => c.html(await teamPage(signedIn(c))));

  /**
   * Runs a team action and shows the team page with its result; a refusal the person can fix (400, 404) shows on the
   * page with nothing changed, and so does an invite limit (429, with Retry-After); anything else (403 for a member)
   * goes to the error page.
   */
  const teamAction = async (c: Context<PortalEnv>, act: (session: SignedIn) => Promise<string | null>) => {
    const session = signedIn(c);
    try {
      const done = await act(session);
      // null: the person removed themselves, so their session ended with it.
      return done === null ? c.redirect("/portal/sign-in", 303) : c.html(await teamPage(session, { kind: "ok", text: done }));
    } catch (error) {
      if (error instanceof ServiceError && (error.status === 400 || error.status === 404)) return c.html(await teamPage(session, { kind: "error", text: error.detail }), error.status);
      if (error instanceof TooManyInvitesError) {
        c.header("Retry-After", String(error.retryAfterSeconds));
        return c.html(await teamPage(session, { kind: "error", text: error.message }), 429);
      }
      throw error;
    }
  };
  const memberInput = (c: Context<PortalEnv>) => ({ email: field(c, "email"), role: field(c, "role") as Role });

  app.post("/team/invite", (c) =>
    teamAction(c, async (session) => {
      const member = await inviteMember(store, mailer, session.accountId, actorOf(session), memberInput(c), linkUrl);
      return `Invited ${member.email} as ${member.role}: the link is on its way.`;
    }),
  );

  app.post("/team/role", (c) =>
    teamAction(c, async (session) => {
      const member = await addMember(store, session.accountId, actorOf(session), memberInput(c));
      return `${member.email} is now ${member.role}.`;
    }),
  );

  app.post("/team/remove", (c) =>
    teamAction(c, async (session) => {
      const removed = await removeMember(store, session.accountId, actorOf(session), field(c, "email"));
      return removed.email === session.email ? null : `${removed.email} was removed from the team.`;
    }),
  );

  const keysPage = async (session: SignedIn, shown: { key: string; keyId: string } | null, notice: Notice = null) => {
    const viewer = viewerOf(session);
    const keys = await listKeys(store, session.accountId, actorOf(session));
    return (
      <PortalLayout title="API keys" viewer={viewer} notice={notice}>
        {shown ? (
          <section aria-labelledby="new-key">
            <h2 id="new-key">Your new key</h2>
            <p>Copy it now: it is shown this once and stored only as a hash.</p>
            <code class="secret" id="new-key-value">
              {shown.key}
            </code>
            <p>
              <button type="button" data-copy="new-key-value" hidden>
                Copy
              </button>
            </p>
          </section>
        ) : null}
        <form method="post" action="/portal/keys">
          <Csrf token={viewer.csrf} />
          <Once />
          <p>
            <button type="submit">Create a key</button> <span class="hint">One key covers all of the account's campaigns ({env} environment).</span>
          </p>
        </form>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr>
                  <td>
                    <code>{`${k.keyId}…${k.last4}`}</code>
                  </td>
                  <td>
                    {k.createdAt.slice(0, 16).replace("T", " ")} UTC{k.createdBy ? ` by ${k.createdBy}` : ""}
                  </td>
                  <td>{k.lastUsedAt ? `${k.lastUsedAt.slice(0, 16).replace("T", " ")} UTC` : "never"}</td>
                  <td>
                    {k.revokedAt ? (
                      `revoked ${k.revokedAt.slice(0, 10)}`
                    ) : (
                      <form method="post" action="/portal/keys/revoke" class="inline">
                        <Csrf token={viewer.csrf} />
                        <input type="hidden" name="keyId" value={k.keyId} />
                        <button type="submit" class="danger" aria-label={`Revoke key ${k.keyId}`}>
                          Revoke
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PortalLayout>
    );
  };

  app.get("/keys", async (c) => c.html(await keysPage(signedIn(c), null)));

  app.post("/keys", async (c) => {
    const session = signedIn(c);
    const outcome = await runOnce(c, store, session.accountId, () => createKey(store, env, session.accountId, actorOf(session)));
    if (outcome.repeated) return c.html(await keysPage(session, null, { kind: "error", text: REPEATED_FORM }), 409);
    const created = outcome.value;
    return c.html(await keysPage(session, created, { kind: "ok", text: `Key ${created.keyId} created.` }));
  });

  app.post("/keys/revoke", async (c) => {
    const session = signedIn(c);
    const keyId = field(c, "keyId").slice(0, 64);
    await revokeKey(store, session.accountId, actorOf(session), keyId);
    return c.html(await keysPage(session, null, { kind: "ok", text: `Key ${keyId} revoked: requests with it are refused from now on.` }));
  });

  return app;
}
