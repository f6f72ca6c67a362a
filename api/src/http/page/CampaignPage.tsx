/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PrizeTable } from "../../draw/index.js";
import type { Campaign, CampaignStatus } from "../../store/campaigns.js";
import { DrawList, type DrawView } from "./DrawList.js";
import { HowToCheck, type CommitCount } from "./HowToCheck.js";
import { Layout, type FooterLink } from "./Layout.js";
import { OddsTable } from "./OddsTable.js";
import { ScheduleSection, type NextDrawing } from "./ScheduleSection.js";

export type CampaignPageProps = {
  campaign: Campaign;
  table: PrizeTable;
  averageCents: number;
  next: NextDrawing | null;
  draws: DrawView[];
  truncated: boolean;
  /** The campaign's clock, ISO 8601 UTC. */
  now: string;
  publicBaseUrl: string;
  drawsJsonUrl: string;
  mockEntropy: boolean;
  commits: CommitCount;
  footer: FooterLink[];
};

const STATUS_WORDS: Record<Exclude<CampaignStatus, "draft">, string> = {
  active: "Active",
  paused: "Paused",
  ended: "Ended",
};

/** The public campaign page: odds, schedule, every draw and how to check it. */
export function CampaignPage(props: CampaignPageProps) {
  const { campaign } = props;
  const newestProof = props.draws.find((d) => d.proofUrl !== null)?.proofUrl ?? null;
  return (
    <Layout title={`${campaign.name}: prize draw`} footer={props.footer}>
      <p class="muted">Prize draw</p>
      <h1>{campaign.name}</h1>
      <p>
        <span class="status">{campaign.status === "draft" ? "Draft" : STATUS_WORDS[campaign.status]}</span>
      </p>
      <p>
        Each draw, the campaign picks its winners; this service decides only what each winner receives, with a random value nobody controls, and
        publishes a proof of every draw that anyone can check.
      </p>
      <OddsTable table={props.table} winnersPerDraw={campaign.winnersPerDraw} averageCents={props.averageCents} />
      <ScheduleSection campaign={campaign} next={props.next} />
      <DrawList
        draws={props.draws}
        truncated={props.truncated}
        drawsJsonUrl={props.drawsJsonUrl}
        timezone={campaign.schedule.timezone}
        mode={campaign.mode}
        now={props.now}
      />
      <HowToCheck
        publicBaseUrl={props.publicBaseUrl}
        exampleProofUrl={newestProof}
        mockEntropy={props.mockEntropy}
        drawsJsonUrl={props.drawsJsonUrl}
        commits={props.commits}
      />
    </Layout>
  );
}
