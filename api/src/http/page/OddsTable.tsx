/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PrizeTable } from "../../draw/index.js";
import { dollars, oneIn, percent } from "./format.js";

/** Every tier's prize and odds, top prize first, and the real average prize per winner. */
export function OddsTable(props: { table: PrizeTable; winnersPerDraw: number; averageCents: number }) {
  const { table, winnersPerDraw, averageCents } = props;
  return (
    <section id="odds" aria-labelledby="odds-title">
      <h2 id="odds-title">Prizes and odds</h2>
      <p>Every winner gets one prize from this table. The chance of each prize, per winner:</p>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Prize</th>
              <th scope="col" class="num">Odds</th>
              <th scope="col" class="num">Chance</th>
            </tr>
          </thead>
          <tbody>
            {table.tiers.map((tier) => (
              <tr>
                <td>{dollars(tier.amountCents)}</td>
                <td class="num">{oneIn(tier.weight, table.denominator)}</td>
                <td class="num">{percent(tier.weight, table.denominator)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <td colspan={3}>Average prize per winner: {dollars(averageCents)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
      <p class="muted">
        <small>
          The top prize is won at most once per draw.
          {winnersPerDraw > 1
            ? ` With ${winnersPerDraw} winners per draw its real chance is slightly below the odds shown and the second prize's slightly above; the average already accounts for this.`
            : " The average is the exact expected prize per winner."}{" "}
          Prize table “{table.id}” version {table.version}: {table.denominator.toLocaleString("en-US")} equally likely rolls.
        </small>
      </p>
    </section>
  );
}
