/** Draw math shared by the contract, the service and the verifier: see DESIGN.md sections 5 to 7. */
export type { Hex } from "viem";
export {
  DrawError,
  DrawInputError,
  InvalidCampaignIdError,
  PrizeTableError,
  ProofMismatchError,
  type DrawInputErrorCode,
  type PrizeTableErrorCode,
  type ProofMismatchKind,
} from "./errors.js";
export { drawingSlot, fingerprint, toCampaignId, winnerHash } from "./hash.js";
export {
  batchUserRandomNumber,
  combineRandomValues,
  drawValue,
  reRequestUserRandomNumber,
  userRandomNumber,
  type UserRandomNumberInput,
} from "./origin.js";
export { randomValue, rejectionFloor, rollFor, UINT64_MAX, type Roll } from "./rolls.js";
export {
  DEFAULT_PRIZE_TABLE,
  MAX_DENOMINATOR,
  MAX_PRIZE_CENTS,
  MAX_TIERS,
  MIN_TIERS,
  tierOf,
  validatePrizeTable,
  type PrizeTable,
  type PrizeTableInput,
  type PrizeTier,
  type PrizeTierInput,
} from "./prizeTable.js";
export { computePrizes, type ComputePrizesParameters, type PrizeResult } from "./prizes.js";
export { averagePrizeCents } from "./average.js";
export {
  ENTRANTS_SELECTION,
  entrantsCommitment,
  MAX_ENTRANT_WEIGHT,
  selectWinners,
  selectWinnersLinear,
  type EntrantRef,
  type SelectWinnersParameters,
} from "./entrants.js";
export {
  buildProofV2,
  buildProofV3,
  buildProofV4,
  buildProofV5,
  buildProofV6,
  PROOF_VERSION,
  PROOF_VERSION_V2,
  PROOF_VERSION_V3,
  PROOF_VERSION_V4,
  PROOF_VERSION_V5,
  type EntropyProvider,
  type IndexedResult,
  type ProofEntrant,
  type ProofEntrants,
  type ProofInput,
  type ProofBatch,
  type ProofBatchMember,
  type ProofInputV3,
  type ProofInputV4,
  type ProofInputV5,
  type ProofInputV6,
  type ProofReRequest,
  type ProofRequestBlock,
  type ProofResult,
  type ProofTier,
  type ProofV2,
  type ProofV3,
  type ProofV4,
  type ProofV5,
  type ProofV6,
} from "./proof.js";
