/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PrizeTable } from "../../draw/index.js";
import type { Campaign, CampaignStatus } from "../../store/campaigns.js";
import { DrawList, type BrowserCheck, type DrawView } from "./DrawList.js";
import { EntryLookup } from "./EntryLookup.js";
import { HowToCheck, type CommitCount } from "./HowToCheck.js";
import { Layout, type FooterLink } from "./Layout.js";
import { OddsTable } from "./OddsTable.js";
import type { NextDrawing } from "../../domain/publicPage.js";
import { ScheduleSection } from "./ScheduleSection.js";

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
  /** What this deployment is not: real randomness (mock provider) or real money (a local chain or a test network). */
  testEnvironment: { testRandomness: boolean; testMoney: boolean };
  commits: CommitCount;
  footer: FooterLink[];
  check: BrowserCheck;
  /** The campaign's logo (same origin), or null. */
  logoUrl?: string | null;
  /** The page's module scripts (same origin): the in-browser check, and the entry lookup when a draw is drawn. */
  scripts?: string[];
};

const STATUS_WORDS: Record<Exclude<CampaignStatus, "draft">, string> = {
  active: "Active",
  paused: "Paused",
  ended: "Ended",
};

/** The warning a visitor must not miss: shown first, above the campaign's name and prizes. */
function TestEnvironmentWarning(props: { testRandomness: boolean; testMoney: boolean }) {
  const { testRandomness, testMoney } = props;
  if (!testRandomness && !testMoney) return null;
  const what =
    testRandomness && testMoney
      ? "Draws here use test randomness, which nobody can check independently, and no prize is paid for real."
      : testRandomness
        ? "Draws here use test randomness, which nobody can check independently."
        : "Prizes here are paid in test money on a test network: no prize is paid for real.";
  return (
    <div class="warning" id="test-environment" role="note">
      <strong>Test environment: not a real prize draw</strong>
      {what}
    </div>
  );
}

/** How the campaign's winners come about, in the words of its mode. */
function HowItWorks(props: { campaign: Campaign }) {
  if (props.campaign.mode === "entries") {
    return (
      <p id="how-it-works">
        People enter each draw through the campaign. At the cutoff the list of entrants is locked and committed onchain; only then is a random value
        requested that nobody controls. This service selects the winners from the committed list with that value, each entrant's chance in proportion
        to their weight, decides what each winner receives, and publishes a proof of every draw that anyone can check.
      </p>
    );
  }
  return (
    <p id="how-it-works">
      Each draw, the campaign picks its winners; this service decides only what each winner receives, with a random value nobody controls, and
      publishes a proof of every draw that anyone can check.
    </p>
  );
}

/** The public campaign page: odds, schedule, every draw and how to check it. */
export function CampaignPage(props: CampaignPageProps) {
  const { campaign } = props;
  const newestProof = props.draws.find((d) => d.proofUrl !== null)?.proofUrl ?? null;
  return (
    <Layout title={`${campaign.name}: prize draw`} footer={props.footer} scripts={props.scripts}>
      <TestEnvironmentWarning {...props.testEnvironment} />
      <p class="muted">Prize draw</p>
      {props.logoUrl ? <img src={props.logoUrl} alt={campaign.name} width={96} height={96} style="object-fit: contain; display: block; margin: 0 0 0.5rem;" /> : null}
      <h1>{campaign.name}</h1>
      <p>
        <span class="status">{campaign.status === "draft" ? "Draft" : STATUS_WORDS[campaign.status]}</span>
      </p>
      <HowItWorks campaign={campaign} />
      <OddsTable table={props.table} winnersPerDraw={campaign.winnersPerDraw} averageCents={props.averageCents} />
      <ScheduleSection campaign={campaign} next={props.next} />
      <DrawList
        draws={props.draws}
        truncated={props.truncated}
        drawsJsonUrl={props.drawsJsonUrl}
        timezone={campaign.schedule.timezone}
        mode={campaign.mode}
        now={props.now}
        check={props.check}
      />
      {newestProof ? <EntryLookup mode={campaign.mode} exampleProofUrl={newestProof} truncated={props.truncated} /> : null}
      <HowToCheck
        publicBaseUrl={props.publicBaseUrl}
        exampleProofUrl={newestProof}
        mockEntropy={props.mockEntropy}
        drawsJsonUrl={props.drawsJsonUrl}
        commits={props.commits}
        mode={campaign.mode}
        browserRpc={props.check.rpcUrl}
      />
    </Layout>
  );
}
