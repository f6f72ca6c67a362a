/** One benchmark figure as the JSON line `npm run bench` prints: { name, value, unit, baseline?, ratio? }. */
export type Figure = { name: string; value: number; unit: string; baseline?: number; ratio?: number };

const round = (x: number): number => Math.round(x * 100) / 100;

/** Prints a figure; `ratio` compares two things measured in the same run (its meaning is in the name). */
export function emit(figure: Figure): void {
  const record: Record<string, unknown> = { name: figure.name, value: round(figure.value), unit: figure.unit };
  if (figure.baseline !== undefined) record.baseline = round(figure.baseline);
  if (figure.ratio !== undefined) record.ratio = round(figure.ratio);
  console.log(JSON.stringify(record));
}

/** The p-th percentile (nearest rank) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
