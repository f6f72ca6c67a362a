/**
 * How the keeper groups work into transactions and runs it side by side: pure helpers, no chain or store.
 */

/** Runs `work` on every item, at most `limit` at a time; resolves when all have finished (errors are the caller's). */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Splits groups (one campaign's drawings, in number order) into batches of at most `maxSize` items, never
 * splitting a group: a campaign's later number committed in another transaction would be simulated before its
 * earlier one is mined, and refused. A group larger than `maxSize` is cut to `maxSize` (the rest waits for the
 * next cycle).
 */
export function batchGroups<T>(groups: readonly (readonly T[])[], maxSize: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  for (const group of groups) {
    const items = group.slice(0, maxSize);
    if (items.length === 0) continue;
    if (current.length + items.length > maxSize) {
      batches.push(current);
      current = [];
    }
    current.push(...items);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * The most drawings one commit takes under PrizeDraw's callback gas rules: the base covers the first drawing,
 * each further one needs `perDrawing`, within the contract's `limit` and its MAX_BATCH.
 */
export function maxCommitBatch(budget: { limit: bigint; base: bigint; perDrawing: bigint; maxBatch: bigint }): number {
  const bySize = 1n + (budget.limit - budget.base) / budget.perDrawing;
  return Number(bySize < budget.maxBatch ? bySize : budget.maxBatch);
}

/** Share of the block gas limit one batch may use, so batches of other senders and our own still fit. */
export const BLOCK_GAS_SHARE = 2n;

/** The most gas one transaction may use since the Osaka upgrade (EIP-7825: 2^24), whatever the block's limit. */
export const TX_GAS_CAP = 16_777_216n;

/** Whether a transaction of `gas` fits: at most its share of the block and the per-transaction cap. */
export function fitsBlock(gas: bigint, blockGasLimit: bigint): boolean {
  return gas * BLOCK_GAS_SHARE <= blockGasLimit && gas <= TX_GAS_CAP;
}

/**
 * Runs at most `limit` calls at a time, the rest in order as they finish: the indexer answers from one
 * single-threaded database, and a thousand questions at once time out instead of finishing sooner.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await call();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}
