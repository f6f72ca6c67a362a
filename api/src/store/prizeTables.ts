import { validatePrizeTable, type PrizeTable } from "../draw/index.js";
import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

/** Prize table versions. A version never changes once stored; publishing adds the next one. */
export class PrizeTableStore {
  constructor(private readonly conn: Connection) {}

  private get db(): Db {
    return this.conn.db;
  }

  insert(table: PrizeTable, at: string): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare("INSERT INTO prize_tables (table_id, version, tiers_json, denominator, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
        .run(table.id, table.version, JSON.stringify(table.tiers.map((t) => ({ amountCents: t.amountCents, weight: t.weight }))), table.denominator, at);
    });
  }

  get(tableId: string, version: number): Promise<PrizeTable | null> {
    return this.conn.run(() => {
      const row = this.db.prepare("SELECT tiers_json FROM prize_tables WHERE table_id = ? AND version = ?").get(tableId, version) as { tiers_json: string } | undefined;
      if (!row) return null;
      return validatePrizeTable({ id: tableId, version, tiers: JSON.parse(row.tiers_json) as { amountCents: number; weight: number }[] });
    });
  }

  latestVersion(tableId: string): Promise<number> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT COALESCE(MAX(version), 0) FROM prize_tables WHERE table_id = ?").pluck().get(tableId) as number) ?? 0;
    });
  }
}
