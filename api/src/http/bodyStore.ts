/**
 * Bodies kept in memory under a key, bounded by count and by bytes: a new one goes in as the newest and the oldest go
 * first (insertion order, not use: what is read often is rebuilt rarely either way). The public reads' cache and the
 * proofs' renders each hold one.
 */
export class BodyStore<T extends { body: Buffer }> {
  private readonly entries = new Map<string, T>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** Keeps `entry` as the newest, dropping the oldest beyond the count and byte bounds. */
  keep(key: string, entry: T): void {
    this.drop(key);
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.bytes + entry.body.length > this.maxBytes)) this.drop(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    this.bytes += entry.body.length;
  }

  drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}
