/**
 * Errors of the draw math library. Each carries a stable `code` that callers branch on; messages are for
 * humans and may change.
 */

/** Base class: every error thrown on purpose by api/src/draw is a DrawError. */
export class DrawError<code extends string = string> extends Error {
  override name = "DrawError";
  readonly code: code;

  constructor(code: code, message: string) {
    super(message);
    this.code = code;
  }
}

/** A campaign slug that cannot become a bytes32 campaign id. */
export class InvalidCampaignIdError extends DrawError<"invalid_campaign_id"> {
  override name = "InvalidCampaignIdError";
  readonly slug: string;

  constructor(slug: string, reason: string) {
    super("invalid_campaign_id", `Invalid campaign id ${JSON.stringify(slug)}: ${reason}`);
    this.slug = slug;
  }
}

export type PrizeTableErrorCode =
  | "too_few_tiers"
  | "too_many_tiers"
  | "zero_weight"
  | "bad_weight"
  | "denominator_too_large"
  | "prize_too_large"
  | "bad_amount"
  | "bad_id"
  | "bad_version";

/** A prize table that breaks the spec's rules (or the contract's MAX_TIERS). */
export class PrizeTableError extends DrawError<PrizeTableErrorCode> {
  override name = "PrizeTableError";
  /** Index of the offending tier, or null when the error is about the table as a whole. */
  readonly tier: number | null;

  constructor(code: PrizeTableErrorCode, message: string, tier: number | null = null) {
    super(code, message);
    this.tier = tier;
  }
}

export type DrawInputErrorCode =
  | "bad_hex"
  | "bad_number"
  | "bad_position"
  | "bad_denominator"
  | "bad_roll"
  | "bad_count"
  | "bad_weight"
  | "bad_threshold"
  | "bad_proof_input";

/** An argument outside what the draw computation (or the contract) accepts. */
export class DrawInputError extends DrawError<DrawInputErrorCode> {
  override name = "DrawInputError";
}

/** What did not match when building a proof. */
export type ProofMismatchKind =
  | "winners_commitment"
  | "entrants_commitment"
  | "entrants_totals"
  | "results"
  /** v3: the onchain slot is not keccak256 of the drawing id. */
  | "slot"
  /** v3: the onchain user contribution is not the one derived from the commit. */
  | "user_contribution"
  /** v3: the random value is not the combination of the user and provider contributions. */
  | "entropy_value"
  /** v4: the indexed batch does not hold this drawing at its index, or not as many members as its size. */
  | "batch"
  /** v6: the drawing's value is not Entropy's value mixed with the request block's hash. */
  | "draw_value";

/**
 * The store's names or ids do not hash to the onchain commitment, or the indexed results do not line up with
 * the winner list. The code is always "commitment_mismatch" (a proof must not be served); `kind` says which part.
 */
export class ProofMismatchError extends DrawError<"commitment_mismatch"> {
  override name = "ProofMismatchError";
  readonly kind: ProofMismatchKind;

  constructor(kind: ProofMismatchKind, message: string) {
    super("commitment_mismatch", message);
    this.kind = kind;
  }
}
