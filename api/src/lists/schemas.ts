/**
 * The lists partners send, by push (POST winners, POST entries) or pull (the fetched winner list): their limits,
 * their zod schemas and how a refusal is worded. One definition for the partner API, the pull fetcher and the
 * domain, below all of them (it imports nothing of the service).
 */
import { z } from "zod";
import { characterProblem } from "./characters.js";

/**
 * Most winners one drawing takes, the contract's MAX_WINNERS (entries campaigns; push and pull campaigns take at
 * most 1,000 when created, domain/campaigns.ts). A list longer than this is refused outright, not the 1,000: a
 * campaign created with more before that cap keeps its count, and the count check (exactly winnersExpected)
 * refuses any other length.
 */
export const MAX_WINNERS_PER_DRAW = 100_000;

/** Limits of the spec's Limits section. */
export const MAX_WINNER_ID_LENGTH = 200;
export const MAX_DISPLAY_NAME_LENGTH = 40;
export const MAX_AVATAR_URL_LENGTH = 2_048;

/**
 * POST winners, POST entries and pull responses: the largest legal list must fit. 1,000 winners (the most a push or
 * pull campaign takes) or 1,000 entries (the most per request), each with the longest id (200 characters), name (40)
 * and avatar URL (2,048), take 9.2 MB as UTF-8 JSON with 4-byte characters, and 27.4 MB when every non-ASCII
 * character is a JSON \u escape pair (12 bytes; Python's json.dumps writes that by default). 32 MiB holds either.
 */
export const MAX_LIST_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Length limits count characters as people do, by Unicode code point: an emoji is one character although it is two
 * UTF-16 units (what zod's `max` counts) and four UTF-8 bytes. So a 200-emoji id (800 bytes) is accepted and 201
 * refused, like 200 and 201 ASCII characters. Combining marks count on their own (e + U+0301 is two).
 */
function atMostChars(max: number) {
  return (v: string) => {
    if (v.length <= max) return true;
    if (v.length > 2 * max) return false;
    let n = 0;
    for (const _ of v) if (++n > max) return false;
    return true;
  };
}

/**
 * The character rule of ids and names (lists/characters.ts: no control, format or bidirectional characters, no lone
 * surrogate) as a zod check, for every schema that takes one: the issue names the code point and where it is
 * (`entries[1].entrantId: must not contain control characters: U+009B at character 1`).
 */
export function refuseHiddenCharacters(value: string, ctx: z.RefinementCtx<string>): void {
  const problem = characterProblem(value);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem, input: value });
}

const httpsUrl = z
  .string()
  .refine(atMostChars(MAX_AVATAR_URL_LENGTH), `must be at most ${MAX_AVATAR_URL_LENGTH} characters`)
  .superRefine(refuseHiddenCharacters)
  .refine((v) => {
    try {
      return new URL(v).protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an https URL");

/** An id the partner chooses: 1 to 200 characters, none of them hidden (control, format, bidirectional). */
export const partnerId = z
  .string()
  .min(1, "must not be empty")
  .refine(atMostChars(MAX_WINNER_ID_LENGTH), `must be at most ${MAX_WINNER_ID_LENGTH} characters`)
  .superRefine(refuseHiddenCharacters);

export const displayName = z
  .string()
  .refine(atMostChars(MAX_DISPLAY_NAME_LENGTH), `must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`)
  .superRefine(refuseHiddenCharacters);

const winnerObject = z.strictObject({
  winner: partnerId,
  displayName: displayName.nullable().optional(),
  avatarUrl: httpsUrl.nullable().optional(),
});

/** A bare string stands for `{ <idField>: string }`; errors then name the object's field. */
function stringOr<T extends z.ZodType>(idField: string, object: T) {
  return z.preprocess((v) => (typeof v === "string" ? { [idField]: v } : v), object);
}

/** POST winners body: strings or objects, in position order. */
export const winnersBody = z.strictObject({
  winners: z.array(stringOr("winner", winnerObject)).min(1, "must have at least one winner").max(MAX_WINNERS_PER_DRAW, "too many winners"),
});

const MAX_WEIGHT = 4_294_967_295;

const entryObject = z.strictObject({
  entrantId: partnerId,
  weight: z.number({ message: "must be a whole number from 1 to 4,294,967,295" }).int("must be a whole number from 1 to 4,294,967,295").min(1, "must be a whole number from 1 to 4,294,967,295").max(MAX_WEIGHT, "must be a whole number from 1 to 4,294,967,295").optional(),
  displayName: displayName.nullable().optional(),
  avatarUrl: httpsUrl.nullable().optional(),
});

/** POST entries body: 1 to 1,000 strings or objects. */
export const entriesBody = z.strictObject({
  entries: z.array(stringOr("entrantId", entryObject)).min(1, "must have at least one entry").max(1_000, "must have at most 1,000 entries per request"),
});

/** One winner of a list, as parsed: a bare id stands for `{ winner: id }`. */
export type WinnerEntry = { winner: string; displayName: string | null; avatarUrl: string | null };

/** A zod refusal as one line for the partner: the path of the first issue, then its message (`winners[0].avatarUrl: must be an https URL`). */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request";
  const path = issue.path.reduce<string>((acc, part) => (typeof part === "number" ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), "");
  return path ? `${path}: ${issue.message}` : issue.message;
}
