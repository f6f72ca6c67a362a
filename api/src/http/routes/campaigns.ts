import { Hono } from "hono";
import type { Config } from "../../config.js";
import { CAMPAIGNS_DEFAULT_LIMIT, campaignView, campaignNow, listCampaigns, ownCampaign } from "../../domain/campaigns.js";
import { drawingOf, drawingView, listDrawings, submitWinners } from "../../domain/drawings.js";
import { NotFoundError } from "../../domain/errors.js";
import { advanceClock, durationMs } from "../../domain/testClock.js";
import { parseTime } from "../../domain/times.js";
import type { CampaignStatus } from "../../store/campaigns.js";
import type { DrawingStatus } from "../../store/drawings.js";
import type { Store } from "../../store/index.js";
import type { AuthVariables } from "../auth.js";
import { readJson, readQuery } from "../body.js";
import { winnersBody } from "../../lists/schemas.js";
import { campaignsQuery, drawingsQuery, noQuery, testClockBody } from "../schemas.js";

export type CampaignRoutesDeps = {
  store: Store;
  config: Pick<Config, "env" | "publicBaseUrl">;
  /** Runs a campaign's drawing cycle now (after a test-clock move). */
  runCampaign: (campaignId: string) => void;
};

/** /api/v1/campaigns and /api/v1/campaigns/{slug}/...: the caller's campaigns, and the partner API for winner campaigns. */
export function campaignRoutes({ store, config, runCampaign }: CampaignRoutesDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get("/", async (c) => {
    const query = readQuery(c, campaignsQuery);
    const page = { limit: query.limit ?? CAMPAIGNS_DEFAULT_LIMIT, after: query.after ?? null, status: (query.status as CampaignStatus | undefined) ?? null };
    return c.json(await listCampaigns(store, c.var.accountId, page, config));
  });

  app.get("/:slug", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    readQuery(c, noQuery);
    return c.json({ campaign: await campaignView(store, campaign, config) });
  });

  app.get("/:slug/drawings", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    const query = readQuery(c, drawingsQuery);
    const drawings = await listDrawings(store, campaign, (query.status as DrawingStatus | undefined) ?? null);
    const views: Awaited<ReturnType<typeof drawingView>>[] = [];
    for (const d of drawings) views.push(await drawingView(store, d));
    return c.json({ drawings: views });
  });

  app.get("/:slug/drawings/:id", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    readQuery(c, noQuery);
    return c.json({ drawing: await drawingView(store, await drawingOf(store, campaign, c.req.param("id"))) });
  });

  app.post("/:slug/drawings/:id/winners", async (c) => {
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    const body = await readJson(c, winnersBody);
    const list = body.winners.map((w) => ({ winner: w.winner, displayName: w.displayName ?? null, avatarUrl: w.avatarUrl ?? null }));
    const { status, drawing } = await submitWinners(store, campaign, c.req.param("id"), list);
    return c.json({ drawing: await drawingView(store, drawing) }, status);
  });

  // DESIGN.md section 9: the test clock moves one campaign's time forward; production answers 404.
  app.post("/:slug/test-clock", async (c) => {
    if (config.env !== "test") throw new NotFoundError("no such route");
    const campaign = await ownCampaign(store, c.var.accountId, c.req.param("slug"));
    const body = await readJson(c, testClockBody);
    const now = campaignNow(campaign);
    const target = "advanceBy" in body ? new Date(now.getTime() + durationMs(body.advanceBy)) : parseTime("advanceTo", body.advanceTo);
    const moved = await advanceClock(store, campaign.id, target);
    runCampaign(campaign.id);
    return c.json({ now: campaignNow(moved).toISOString() });
  });

  return app;
}
