// The partner's recurring moves against a running stack, through the public API with an API key: read a drawing,
// list the open ones, post winners, move a campaign's test clock past a drawing's cutoff, wait for a state.
// Each takes the stack and the key explicitly; `check: false` answers the response as it is, without asserting it.

import { expect } from "vitest";
import { until, type Proc } from "./processes.js";
import { api, type Stack } from "./stack.js";

type Service = Pick<Stack, "baseUrl">;
type Check = { check?: boolean };

/** GET a drawing (asserting 200 unless `check: false`) and answer its `drawing`. */
export async function getDrawing<T>(stack: Service, key: string, slug: string, id: string, options: Check = {}): Promise<T> {
  const { status, body } = await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings/${id}`, { key });
  if (options.check !== false) expect(status).toBe(200);
  return body.drawing as T;
}

/** The campaign's open drawings (no assertion on the status). */
export async function openDrawings<T>(stack: Service, key: string, slug: string): Promise<T[]> {
  return (await api(stack, "GET", `/api/v1/campaigns/${slug}/drawings?status=open`, { key })).body.drawings as T[];
}

/** POSTs a drawing's winners; asserts 201 (with the body as message) unless `check: false`. */
export async function postWinners(stack: Service, key: string, slug: string, id: string, winners: string[], options: Check = {}): ReturnType<typeof api> {
  const r = await api(stack, "POST", `/api/v1/campaigns/${slug}/drawings/${id}/winners`, { key, body: { winners } });
  if (options.check !== false) expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r;
}

/** Moves the campaign's test clock to `at`; asserts 200 (with the body as message) unless `check: false`. */
export async function clockTo(stack: Service, key: string, slug: string, at: number | Date, options: Check = {}): ReturnType<typeof api> {
  const r = await api(stack, "POST", `/api/v1/campaigns/${slug}/test-clock`, { key, body: { advanceTo: new Date(at).toISOString() } });
  if (options.check !== false) expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
}

/** Moves the campaign's test clock `offsetMs` (default one second) past the drawing's cutoff. */
export function clockPast(stack: Service, key: string, slug: string, drawing: { cutoffAt: string }, options: Check & { offsetMs?: number } = {}): ReturnType<typeof api> {
  return clockTo(stack, key, slug, new Date(drawing.cutoffAt).getTime() + (options.offsetMs ?? 1_000), options);
}

/** Reads until `ok` holds (every 250 ms, for `ms`, default a minute) and answers that read; fails early if `proc` exits. */
export function waitFor<T>(label: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000, proc?: Proc): Promise<T> {
  return until(label, async () => {
    const v = await read();
    return ok(v) ? v : undefined;
  }, ms, 250, proc);
}
