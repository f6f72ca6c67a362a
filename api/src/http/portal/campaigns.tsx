/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
// The campaigns screens (any team member): the list with what needs attention.
import { Hono } from "hono";
import type { Store } from "../../store/index.js";
import { signedIn, type PortalEnv } from "./guard.js";
import { PortalLayout } from "./Layout.js";
import { viewerOf } from "./team.js";

export type CampaignScreensDeps = { store: Store; publicBaseUrl: string };

export function campaignListRoutes({ store, publicBaseUrl }: CampaignScreensDeps) {
  const app = new Hono<PortalEnv>();

  app.get("/", (c) => {
    const session = signedIn(c);
    const campaigns = store.campaigns.ofAccount(session.accountId).map((campaign) => {
      const flagged = store.drawings.unfinished(campaign.id).filter((d) => d.needsAttention !== null);
      return { campaign, flagged };
    });
    return c.html(
      <PortalLayout title="Campaigns" viewer={viewerOf(session)}>
        {campaigns.length === 0 ? <p>No campaigns yet.</p> : null}
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">Mode</th>
                <th scope="col">Status</th>
                <th scope="col">Needs attention</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map(({ campaign, flagged }) => (
                <tr>
                  <td>
                    <a href={`/portal/campaigns/${campaign.slug}`}>{campaign.name}</a>
                    <span class="hint">
                      {campaign.slug} · <a href={`${publicBaseUrl}/campaigns/${campaign.slug}`}>public page</a>
                    </span>
                  </td>
                  <td>{campaign.mode}</td>
                  <td>{campaign.status}</td>
                  <td>{flagged.length === 0 ? "nothing" : `${flagged.length} drawing${flagged.length === 1 ? "" : "s"}: ${flagged[0]!.needsAttention}`}</td>
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
