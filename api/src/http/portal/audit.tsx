/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The account's audit log (owners only): who did what to the team, the keys and the campaigns, newest first. The
// domain (accountAudit) refuses members; rows never hold secrets (keys, pull URLs, sign-in links).
import { Hono } from "hono";
import { accountAudit } from "../../domain/team.js";
import type { Store } from "../../store/index.js";
import { signedIn, type PortalEnv } from "./guard.js";
import { utc } from "./forms.js";
import { PortalLayout } from "./Layout.js";
import { actorOf, viewerOf } from "./team.js";

/** Rows shown; older ones stay in the store. */
export const AUDIT_ROWS = 200;

export function auditRoutes({ store }: { store: Store }) {
  const app = new Hono<PortalEnv>();

  app.get("/audit", async (c) => {
    const session = signedIn(c);
    const rows = await accountAudit(store, session.accountId, actorOf(session), AUDIT_ROWS);
    return c.html(
      <PortalLayout title="Audit log" viewer={viewerOf(session)}>
        <p>The latest {AUDIT_ROWS} actions on the account, its team, keys and campaigns, by the team (by email), the service's operators and the API.</p>
        {rows.length === 0 ? <p>Nothing recorded yet.</p> : null}
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">On</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr>
                  <th scope="row">{utc(r.at)}</th>
                  <td>{r.actor}</td>
                  <td>{r.action}</td>
                  <td>{r.subject ?? ""}</td>
                  <td>
                    <code class="detail">{Object.keys(r.detail).length === 0 ? "" : JSON.stringify(r.detail)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PortalLayout>,
    );
  });

  return app;
}
