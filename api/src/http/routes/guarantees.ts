import { Hono } from "hono";
import { guaranteeView, pickGuarantee } from "../../domain/guarantees.js";
import type { Store } from "../../store/index.js";
import type { AuthVariables } from "../auth.js";
import { readJson, readQuery } from "../body.js";
import { guaranteePickBody, noQuery } from "../schemas.js";
import { ownCampaign } from "../../domain/campaigns.js";

/** /api/v1/campaigns/{slug}/guarantees: checked guarantee periods and the partner's pick. */
export function guaranteeRoutes({ store }: { store: Store }) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get("/:slug/guarantees", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    readQuery(c, noQuery);
    return c.json({ guarantees: (await store.guarantees.list(campaign.id)).map(guaranteeView) });
  });

  app.post("/:slug/guarantees/:id/pick", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    const body = await readJson(c, guaranteePickBody);
    return c.json(await pickGuarantee(store, campaign, c.req.param("id"), { winner: body.winner, drawingId: body.drawingId }), 201);
  });

  return app;
}
