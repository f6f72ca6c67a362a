import type { Connection } from "./connection.js";
import type { Db } from "./db.js";

export type Entry = { entrantId: string; weight: number; displayName: string | null; avatarUrl: string | null };
export type StoredEntry = Entry & { seq: number; position: number | null };

type Record_ = { seq: number; entrant_id: string; weight: number; display_name: string | null; avatar_url: string | null; position: number | null };

const entry = (r: Record_): StoredEntry => ({
  seq: r.seq,
  entrantId: r.entrant_id,
  weight: r.weight,
  displayName: r.display_name,
  avatarUrl: r.avatar_url,
  position: r.position,
});

/** Entrants of entries campaigns, per drawing, in arrival order (`seq`). */
export class EntryStore {
  private readonly insertOne;
  private readonly updateOne;

  constructor(private readonly conn: Connection) {
    this.insertOne = conn.db.prepare(
      "INSERT INTO entries (drawing_id, entrant_id, weight, display_name, avatar_url) VALUES (?, ?, ?, ?, ?) ON CONFLICT (drawing_id, entrant_id) DO NOTHING",
    );
    this.updateOne = conn.db.prepare("UPDATE entries SET weight = ?, display_name = ?, avatar_url = ? WHERE drawing_id = ? AND entrant_id = ?");
  }

  private get db(): Db {
    return this.conn.db;
  }

  /** The stored entries among `entrantIds`, by id: one query for a whole request. */
  existing(drawingId: string, entrantIds: readonly string[]): Promise<Map<string, StoredEntry>> {
    return this.conn.run(() => {
      const rows = this.db
        .prepare("SELECT * FROM entries WHERE drawing_id = ? AND entrant_id IN (SELECT value FROM json_each(?))")
        .all(drawingId, JSON.stringify(entrantIds)) as Record_[];
      return new Map(rows.map((r) => [r.entrant_id, entry(r)]));
    });
  }

  /** Inserts a new entrant; returns false (and changes nothing) when the drawing already has it. */
  insertIfNew(drawingId: string, e: Entry): Promise<boolean> {
    return this.conn.run(() => {
      return this.insertOne.run(drawingId, e.entrantId, e.weight, e.displayName, e.avatarUrl).changes === 1;
    });
  }

  update(drawingId: string, e: Entry): Promise<void> {
    return this.conn.run(() => {
      this.updateOne.run(e.weight, e.displayName, e.avatarUrl, drawingId, e.entrantId);
    });
  }

  /** A page in arrival order after `afterSeq` (a stable cursor: later arrivals only append). */
  page(drawingId: string, afterSeq: number, limit: number): Promise<StoredEntry[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM entries WHERE drawing_id = ? AND seq > ? ORDER BY seq LIMIT ?").all(drawingId, afterSeq, limit) as Record_[]).map(entry);
    });
  }

  /** Every entrant in arrival order (the order the list locks in). */
  all(drawingId: string): Promise<StoredEntry[]> {
    return this.conn.run(() => {
      return (this.db.prepare("SELECT * FROM entries WHERE drawing_id = ? ORDER BY seq").all(drawingId) as Record_[]).map(entry);
    });
  }

  /** Fixes positions 0, 1, 2, ... in arrival order (at the lock). */
  assignPositions(drawingId: string): Promise<void> {
    return this.conn.run(() => {
      this.db
        .prepare(
          `UPDATE entries SET position = ranked.rn - 1
           FROM (SELECT seq, ROW_NUMBER() OVER (ORDER BY seq) AS rn FROM entries WHERE drawing_id = ?) AS ranked
           WHERE entries.seq = ranked.seq`,
        )
        .run(drawingId);
    });
  }
}
