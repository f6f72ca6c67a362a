import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lowercase: no i, l, o, u

/** A random identifier with a type prefix, e.g. `drw_3k9x...` (100 bits of randomness). */
export function newId(prefix: "acc" | "mem" | "key" | "cmp" | "drw" | "aud" | "gtd" | "pay" | "whk" | "msg"): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return `${prefix}_${out}`;
}
