/**
 * The characters no id or name may hold, whatever door it comes in by (a partner list pushed or pulled, an API
 * body, a portal form, the CLI): one rule, so that every door refuses the same text with the same words.
 *
 * Ids and names are shown where the partner does not control how: the campaign page, proof.json, the verifier's
 * terminal output, the portal, the operator's log. There a control character can drive the terminal (C1's U+009B is
 * a CSI: `\u009b2J` clears the screen), a bidirectional override reorders what is shown ("Trojan Source"), and a
 * zero-width or other format character makes two different ids look the same. So refused are:
 * - control characters, Unicode Cc: C0 (U+0000 to U+001F), DEL and C1 (U+0080 to U+009F);
 * - format characters, Unicode Cf: zero-width space, non-joiner and joiner (U+200B to U+200D), the direction marks
 *   (U+200E, U+200F, U+061C), the bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to
 *   U+2069), the word joiner and invisible operators (U+2060 to U+2064), the byte order mark (U+FEFF), the soft
 *   hyphen (U+00AD), tag characters (U+E0000 to U+E007F) and the rest of the category;
 * - the line and paragraph separators U+2028 and U+2029 (Unicode Zl and Zp: they break a line where none is shown);
 * - a lone UTF-16 surrogate, which is not a character at all (SQLite would store U+FFFD in its place, so the id
 *   hashed would differ from the id sent).
 * Two uses of format characters are how emoji are written, and stay allowed: a zero-width joiner between two
 * pictographs (a family, a rainbow flag, a technologist with a skin tone), and the tag characters of a subdivision
 * flag (the flag of England: U+1F3F4, tags, then the cancel tag U+E007F). Nothing else is normalized or removed:
 * text is accepted exactly as sent, or refused.
 *
 * This module imports nothing: the lists' schemas, the domain and the pull fetcher all use it.
 */

/** Why a character is refused; each kind has its own words in the message. */
export type RefusedKind = "control" | "bidirectional" | "format" | "lone_surrogate";

/** The first refused character of a text: its kind, its code point, and its position (1-based, in code points). */
export type RefusedCharacter = { kind: RefusedKind; codePoint: number; position: number };

/** Any character that may be refused; a text without one (nearly every text) is accepted after this one test. */
const CANDIDATE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const BIDIRECTIONAL = /^[\u202A-\u202E\u2066-\u2069]$/u;
const CONTROL = /^\p{Cc}$/u;
const LONE_SURROGATE = /^\p{Cs}$/u;
/** What may come before a joining U+200D: a pictograph, a skin tone, or the emoji presentation selector U+FE0F. */
const JOINS_AFTER = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]$/u;
const JOINS_BEFORE = /^\p{Extended_Pictographic}$/u;

const ZERO_WIDTH_JOINER = 0x200d;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const isTag = (cp: number) => cp >= 0xe0020 && cp <= 0xe007e;

/** The first refused character of `text`, or null when the text may be used as an id or a name. */
export function findRefusedCharacter(text: string): RefusedCharacter | null {
  if (!CANDIDATE.test(text)) return null;
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (!CANDIDATE.test(char)) continue;
    const codePoint = char.codePointAt(0)!;
    if (codePoint === ZERO_WIDTH_JOINER && i > 0 && i + 1 < chars.length && JOINS_AFTER.test(chars[i - 1]!) && JOINS_BEFORE.test(chars[i + 1]!)) continue;
    if (isTag(codePoint) && chars[i - 1]?.codePointAt(0) === BLACK_FLAG) {
      // A subdivision flag: tags up to the cancel tag, all of them part of the one emoji.
      let end = i;
      while (end < chars.length && isTag(chars[end]!.codePointAt(0)!)) end++;
      if (chars[end]?.codePointAt(0) === CANCEL_TAG) {
        i = end;
        continue;
      }
    }
    const kind: RefusedKind = CONTROL.test(char) ? "control" : LONE_SURROGATE.test(char) ? "lone_surrogate" : BIDIRECTIONAL.test(char) ? "bidirectional" : "format";
    return { kind, codePoint, position: i + 1 };
  }
  return null;
}

const WORDS: Record<RefusedKind, string> = {
  control: "must not contain control characters",
  bidirectional: "must not contain bidirectional override characters",
  format: "must not contain invisible format characters",
  lone_surrogate: "must be valid Unicode (no lone surrogate)",
};

/** `must not contain control characters: U+009B at character 1`: the kind, the code point and where it is. */
export function refusedCharacterMessage(refused: RefusedCharacter): string {
  const hex = refused.codePoint.toString(16).toUpperCase().padStart(4, "0");
  return `${WORDS[refused.kind]}: U+${hex} at character ${refused.position}`;
}

/** Why `text` may not be an id or a name (the message, without the field's name), or null when it may. */
export function characterProblem(text: string): string | null {
  const refused = findRefusedCharacter(text);
  return refused === null ? null : refusedCharacterMessage(refused);
}
