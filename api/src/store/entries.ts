import { sql, type Selectable } from "kysely";
import type { Connection } from "./connection.js";
import type { EntriesTable } from "./schema.js";

export type Entry = { entrantId: string; weight: number; displayName: string | null; avatarUrl: string | null };
export type StoredEntry = Entry & { seq: number; position: number | null };

type Record_ = Selectable<EntriesTable>;

const entry = (r: Record_): StoredEntry => ({
  seq: r.seq,
  entrantId: r.entrant_id,
  weight: r.weight,
  displayName: r.display_name,
  avatarUrl: r.avatar_url,
  position: r.position,
});

/** Ids per `IN (...)` list: far below either engine's limit on a statement's parameters (PostgreSQL: 65535). */
const IN_CHUNK = 500;
/** Rows per multi-row INSERT: 5 parameters each, 2,500 a statement (SQLite allows 32,766, PostgreSQL 65,535). */
const INSERT_CHUNK = 500;

/** Entrants of entries campaigns, per drawing, in arrival order (`seq`). */
export class EntryStore {
  constructor(private readonly conn: Connection) {}

  /** The stored entries among `entrantIds`, by id: a query per 500 ids (one for a whole request of most sizes). */
  async existing(drawingId: string, entrantIds: readonly string[]): Promise<Map<string, StoredEntry>> {
    const found = new Map<string, StoredEntry>();
    for (let start = 0; start < entrantIds.length; start += IN_CHUNK) {
      const rows = await this.conn
        .q()
        .selectFrom("entries")
        .selectAll()
        .where("drawing_id", "=", drawingId)
        .where("entrant_id", "in", entrantIds.slice(start, start + IN_CHUNK))
        .execute();
      for (const r of rows) found.set(r.entrant_id, entry(r));
    }
    return found;
  }

  /**
   * Inserts the entrants the drawing does not have yet, in list order (so `seq` stays arrival order), one statement
   * per 500 rows (a round trip each on PostgreSQL, not one per entrant); returns the ids it inserted. Entrants the
   * drawing has already are left as they are.
   */
  async insertNew(drawingId: string, list: readonly Entry[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (let start = 0; start < list.length; start += INSERT_CHUNK) {
      const rows = await this.conn
        .q()
        .insertInto("entries")
        .values(list.slice(start, start + INSERT_CHUNK).map((e) => ({ drawing_id: drawingId, entrant_id: e.entrantId, weight: e.weight, display_name: e.displayName, avatar_url: e.avatarUrl })))
        .onConflict((oc) => oc.columns(["drawing_id", "entrant_id"]).doNothing())
        .returning("entrant_id")
        .execute();
      for (const r of rows) inserted.add(r.entrant_id);
    }
    return inserted;
  }

  async update(drawingId: string, e: Entry): Promise<void> {
    await this.conn
      .q()
      .updateTable("entries")
      .set({ weight: e.weight, display_name: e.displayName, avatar_url: e.avatarUrl })
      .where("drawing_id", "=", drawingId)
      .where("entrant_id", "=", e.entrantId)
      .execute();
  }

  /** A page in arrival order after `afterSeq` (a stable cursor: later arrivals only append). */
  async page(drawingId: string, afterSeq: number, limit: number): Promise<StoredEntry[]> {
    const rows = await this.conn.q().selectFrom("entries").selectAll().where("drawing_id", "=", drawingId).where("seq", ">", afterSeq).orderBy("seq").limit(limit).execute();
    return rows.map(entry);
  }

  /** Every entrant in arrival order (the order the list locks in). */
  async all(drawingId: string): Promise<StoredEntry[]> {
    const rows = await this.conn.q().selectFrom("entries").selectAll().where("drawing_id", "=", drawingId).orderBy("seq").execute();
    return rows.map(entry);
  }

  /** Fixes positions 0, 1, 2, ... in arrival order (at the lock). */
  async assignPositions(drawingId: string): Promise<void> {
    // One statement for the whole list (UPDATE ... FROM: SQLite 3.33+ and PostgreSQL).
    await this.conn
      .q()
      .updateTable("entries")
      .from((eb) =>
        eb
          .selectFrom("entries")
          .select(["seq", sql<number>`ROW_NUMBER() OVER (ORDER BY seq)`.as("rn")])
          .where("drawing_id", "=", drawingId)
          .as("ranked"),
      )
      .set((eb) => ({ position: eb("ranked.rn", "-", 1) }))
      .whereRef("entries.seq", "=", "ranked.seq")
      .execute();
  }
}
