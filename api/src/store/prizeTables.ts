import { validatePrizeTable, type PrizeTable } from "../draw/index.js";
import type { Connection } from "./connection.js";

/** Prize table versions. A version never changes once stored; publishing adds the next one. */
export class PrizeTableStore {
  constructor(private readonly conn: Connection) {}

  async insert(table: PrizeTable, at: string): Promise<void> {
    await this.conn
      .q()
      .insertInto("prize_tables")
      .values({
        table_id: table.id,
        version: table.version,
        tiers_json: JSON.stringify(table.tiers.map((t) => ({ amountCents: t.amountCents, weight: t.weight }))),
        denominator: table.denominator,
        created_at: at,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async get(tableId: string, version: number): Promise<PrizeTable | null> {
    const row = await this.conn.q().selectFrom("prize_tables").select("tiers_json").where("table_id", "=", tableId).where("version", "=", version).executeTakeFirst();
    if (!row) return null;
    return validatePrizeTable({ id: tableId, version, tiers: JSON.parse(row.tiers_json) as { amountCents: number; weight: number }[] });
  }

  async latestVersion(tableId: string): Promise<number> {
    const row = await this.conn
      .q()
      .selectFrom("prize_tables")
      .select((eb) => eb.fn.max("version").as("v"))
      .where("table_id", "=", tableId)
      .executeTakeFirst();
    // MAX over no rows is null (one row still comes back).
    return Number(row?.v ?? 0);
  }
}
