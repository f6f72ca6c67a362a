/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Campaign } from "../../store/campaigns.js";
import type { NextDrawing } from "../../domain/publicPage.js";
import type { Drawing } from "../../store/drawings.js";
import { dollars, duration, localDate, localTime, scheduleWords } from "./format.js";


/** A time shown in the campaign's zone, with the exact instant in the element. */
export function Time(props: { iso: string; timezone: string }) {
  return <time datetime={props.iso}>{localTime(props.iso, props.timezone)}</time>;
}

/** When draws happen, when lists close, how many win, and the drawing open now (if any). */
export function ScheduleSection(props: { campaign: Campaign; next: NextDrawing | null }) {
  const { campaign, next } = props;
  const s = campaign.schedule;
  const closes = campaign.mode === "entries" ? "Entries close" : "Winner lists close";
  return (
    <section id="schedule" aria-labelledby="schedule-title">
      <h2 id="schedule-title">Schedule</h2>
      <ul>
        <li>{scheduleWords(s)}.</li>
        <li>
          {closes} {duration(s.cutoffMinutes)} before each draw.
        </li>
        <li>
          {campaign.winnersPerDraw === 1 ? "1 winner" : `${campaign.winnersPerDraw.toLocaleString("en-US")} winners`} per draw. If fewer people
          entered, all of them win.
        </li>
        <li>
          {campaign.status === "ended" && s.endsAt
            ? `Ran from ${localDate(s.startsAt, s.timezone)} to ${localDate(s.endsAt, s.timezone)}.`
            : s.endsAt
              ? `Runs from ${localDate(s.startsAt, s.timezone)} to ${localDate(s.endsAt, s.timezone)}.`
              : `Runs from ${localDate(s.startsAt, s.timezone)}, no end date set.`}
        </li>
        <li>
          Prizes of {dollars(campaign.largePrizeThresholdCents)} or more are held and paid by hand after checks; smaller prizes are paid
          automatically after each draw.
        </li>
        {campaign.guarantee ? (
          <li>
            Guarantee: when a {campaign.guarantee.periodDays}-day period ends without a prize of {dollars(campaign.guarantee.thresholdCents)} or
            more, one of that period's winners receives an extra {dollars(campaign.guarantee.amountCents)}.
          </li>
        ) : null}
      </ul>
      <h3>Next drawing</h3>
      {next ? (
        <p>
          Draw at <Time iso={next.drawing.drawAt} timezone={s.timezone} />; {closes.toLowerCase()} at{" "}
          <Time iso={next.drawing.cutoffAt} timezone={s.timezone} />. {next.drawing.winnersExpected.toLocaleString("en-US")}{" "}
          {next.drawing.winnersExpected === 1 ? "winner" : "winners"}, average prize {dollars(next.averageCents)}.
        </p>
      ) : (
        <p>
          No drawing open
          {campaign.status === "paused" ? ": the campaign is paused." : campaign.status === "ended" ? ": the campaign has ended." : " at the moment."}
        </p>
      )}
    </section>
  );
}
