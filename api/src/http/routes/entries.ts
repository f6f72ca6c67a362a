import { Hono } from "hono";
import { listEntries, submitEntries, ENTRIES_DEFAULT_LIMIT } from "../../domain/entries.js";
import type { Store } from "../../store/index.js";
import type { AuthVariables } from "../auth.js";
import { readJson, readQuery } from "../body.js";
import { entriesBody } from "../../lists/schemas.js";
import { entriesQuery } from "../schemas.js";
import { ownCampaign } from "../../domain/campaigns.js";

/** /api/v1/campaigns/{slug}/entries: entrants of entries campaigns. */
export function entryRoutes({ store }: { store: Store }) {
  const app = new Hono<{ Variables: AuthVariables }>();

  // 200 on success, whether entrants were added, updated or unchanged: re-sending is always safe (README).
  app.post("/:slug/entries", async (c) => {
    const arrival = new Date();
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    const body = await readJson(c, entriesBody);
    const list = body.entries.map((e) => ({ entrantId: e.entrantId, weight: e.weight ?? 1, displayName: e.displayName ?? null, avatarUrl: e.avatarUrl ?? null }));
    return c.json(await submitEntries(store, campaign, list, arrival));
  });

  app.get("/:slug/entries", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    const query = readQuery(c, entriesQuery);
    return c.json(await listEntries(store, campaign, { drawing: query.drawing, after: query.after, limit: query.limit ?? ENTRIES_DEFAULT_LIMIT }));
  });

  return app;
}
