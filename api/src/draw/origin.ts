/**
 * Where a drawing's random value comes from (Pyth Entropy v2, contracts/PrizeDraw.sol commitAndRequest):
 *
 *   userRandomNumber = keccak256(abi.encode(bytes32 campaignId, uint64 number, bytes32 slot, bytes32 listCommitment))
 *   randomValue      = keccak256(abi.encodePacked(bytes32 userRandomNumber, bytes32 providerContribution, bytes32(0)))
 *
 * The user contribution is derived from the commit (DrawMath.userRandomNumber), so the random value is fixed by
 * the committed list and the provider's revelation; nobody, the operator included, picks it after seeing the
 * list. The provider's part is the `providerContribution` of Entropy's `Revealed` event; v2 requests never mix
 * in a block hash, hence the zero word.
 *
 * One request may serve a batch of drawings (commitAndRequest takes several commits): its user contribution is
 * then batchUserRandomNumber of every drawing's userRandomNumber in batch order (DrawMath.batchUserRandomNumber).
 * A batch of one keeps its drawing's contribution as is, so a single drawing's request is as before batches.
 *
 * A request not revealed within the deployment's revealTimeoutBlocks may be re-requested, once, in public
 * (PrizeDraw.reRequest): the new request's user contribution is reRequestUserRandomNumber of the request it
 * replaces (DrawMath.reRequestUserRandomNumber), public since the commit, so whoever re-requests adds nothing of
 * their own. The random value is then combineRandomValues of that contribution and the new provider's.
 */
import { hexToBytes, keccak256, type Address, type Hex } from "viem";
import { assertBytes32, writeBytes32, writeUint256 } from "./abi.js";
import { DrawInputError } from "./errors.js";
import { assertUint64 } from "./rolls.js";

export type UserRandomNumberInput = {
  /** bytes32 campaign id (toCampaignId(slug)). */
  campaignId: Hex;
  /** The drawing's number (uint64). */
  number: bigint | number;
  /** drawingSlot(drawing id). */
  slot: Hex;
  /** The committed list: the winner fingerprint (winner draws) or the entrant commitment (entrant draws). */
  listCommitment: Hex;
};

/** The user contribution of a drawing's randomness request (DrawMath.userRandomNumber). */
export function userRandomNumber({ campaignId, number, slot, listCommitment }: UserRandomNumberInput): Hex {
  const buf = new Uint8Array(128);
  writeBytes32(buf, 0, assertBytes32(campaignId, "campaignId"));
  const n = typeof number === "number" && Number.isSafeInteger(number) ? BigInt(number) : number;
  writeUint256(buf, 32, assertUint64(n as bigint, "number"));
  writeBytes32(buf, 64, assertBytes32(slot, "slot"));
  writeBytes32(buf, 96, assertBytes32(listCommitment, "listCommitment"));
  return keccak256(buf);
}

/**
 * The user contribution of a randomness request serving a batch of drawings, from each drawing's userRandomNumber
 * in batch order (DrawMath.batchUserRandomNumber): a batch of one uses its drawing's as is, a larger batch
 * keccak256(abi.encodePacked(c_0, ..., c_{n-1})). An empty batch is refused (the contract refuses it too).
 */
export function batchUserRandomNumber(contributions: readonly Hex[]): Hex {
  if (!Array.isArray(contributions) || contributions.length === 0) {
    throw new DrawInputError("bad_proof_input", "a batch has at least one drawing's contribution");
  }
  if (contributions.length === 1) return assertBytes32(contributions[0] as Hex, "contributions[0]");
  const buf = new Uint8Array(32 * contributions.length);
  contributions.forEach((c, i) => writeBytes32(buf, 32 * i, assertBytes32(c, `contributions[${i}]`)));
  return keccak256(buf);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The user contribution of a re-request (DrawMath.reRequestUserRandomNumber):
 * keccak256(abi.encode(address previousProvider, uint64 previousSequence)), where (previousProvider,
 * previousSequence) is the Entropy request the re-request replaces. Nobody chooses it: both are in the commit's
 * EntropyRequested event.
 */
export function reRequestUserRandomNumber(previousProvider: Address, previousSequence: bigint): Hex {
  if (typeof previousProvider !== "string" || !ADDRESS.test(previousProvider)) {
    throw new DrawInputError("bad_hex", `previousProvider must be a 20-byte hex address, got ${String(previousProvider)}`);
  }
  const buf = new Uint8Array(64);
  // abi.encode left-pads an address to a 32-byte word.
  buf.set(hexToBytes(previousProvider), 12);
  writeUint256(buf, 32, assertUint64(previousSequence, "previousSequence"));
  return keccak256(buf);
}

/**
 * The random value Pyth Entropy v2 delivers for a user and a provider contribution:
 * keccak256(abi.encodePacked(user, provider, bytes32(0))).
 */
export function combineRandomValues(user: Hex, provider: Hex): Hex {
  const buf = new Uint8Array(96);
  writeBytes32(buf, 0, assertBytes32(user, "user contribution"));
  writeBytes32(buf, 32, assertBytes32(provider, "provider contribution"));
  return keccak256(buf);
}

/**
 * A drawing's random value, from which every prize follows (DrawMath.drawValue):
 * keccak256(abi.encode(bytes32 entropyValue, bytes32 requestBlockHash)), Entropy's value for the request mixed with
 * the hash of the block that holds the request (the commit's, or the re-request's). Nobody knows that hash when the
 * request is signed, so nobody can steer the value by choosing a slot, a moment or a sequence number.
 */
export function drawValue(entropyValue: Hex, requestBlockHash: Hex): Hex {
  const buf = new Uint8Array(64);
  writeBytes32(buf, 0, assertBytes32(entropyValue, "entropy value"));
  writeBytes32(buf, 32, assertBytes32(requestBlockHash, "request block hash"));
  return keccak256(buf);
}
