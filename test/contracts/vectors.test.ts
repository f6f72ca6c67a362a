import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AbiCoder, keccak256, solidityPackedKeccak256, zeroPadBytes, toUtf8Bytes } from "ethers";
import type { DrawMathHarness, TestEntropyV2 } from "../../typechain-types";
import {
  KIND_ENTRANTS,
  KIND_WINNERS,
  REVEAL_TIMEOUT_BLOCKS,
  STATUS,
  awarded,
  campaignIdOf,
  commit,
  commitArgs,
  deployFixture,
  expectedPrizes,
  expectedRoll,
  findEvents,
  reveal,
  sendBatch,
  slotOf,
  userRandomNumberOf,
  winnersFingerprint,
} from "./helpers";
import { combineRandomValues } from "./entropyV2";

/** The shared draw vectors (test/vectors/draw-vectors.json, written from the TypeScript library). */
type VectorCase = {
  name: string;
  /** The service's drawing id, its slot (keccak256 of it), the committed list and the request's user number. */
  drawingId?: string;
  slot?: string;
  listCommitment?: string;
  userRandomNumber?: string;
  inputs: {
    entropy: string;
    slug: string;
    campaignId: string;
    number: string;
    table: {
      id: string;
      version: number;
      denominator: number;
      amountsCents: number[];
      weights: number[];
      thresholds: number[];
      rejectionFloor?: string;
    };
    count: number;
    largePrizeThresholdCents: number;
  };
  winners: { ids: string[]; fingerprint: string };
  entrants: null | { count: number; totalWeight: string | number; entrantsCommitment: string };
  expected: {
    prizeCount: number;
    results: { position: number; randomValue: string; roll: number; tier: number; amountCents: number; held: boolean }[];
  };
};
type CombineCase = { user: string; provider: string; randomNumber: string };
/** One randomness request serving several drawings; members in batch order, committable in that order. */
type BatchCase = {
  name: string;
  members: { slug: string; campaignId: string; number: string; drawingId: string; slot: string; listCommitment: string; userRandomNumber: string }[];
  userRandomNumber: string;
};

/** A re-request's user contribution: keccak256(abi.encode(address previousProvider, uint64 previousSequence)). */
type ReRequestCase = { name: string; previousProvider: string; previousSequence: string; userRandomNumber: string };

/** A drawing value: keccak256(abi.encode(bytes32 entropyValue, bytes32 requestBlockHash)); caseName's case follows from it. */
type DrawValueCase = { name: string; entropyValue: string; requestBlockHash: string; drawValue: string; caseName: string | null };

const vectors = JSON.parse(readFileSync(join(__dirname, "../vectors/draw-vectors.json"), "utf8")) as {
  cases: VectorCase[];
  combine?: CombineCase[];
  batches?: BatchCase[];
  reRequest?: ReRequestCase[];
  drawValue?: DrawValueCase[];
};

/** PrizeDraw numbers drawings 1, 2, 3... in 32 bits: larger vector numbers are checked through DrawMathHarness only. */
const MAX_ONCHAIN_NUMBER = 50n;

async function vectorFixture() {
  const f = await deployFixture();
  const harness = (await (await ethers.getContractFactory("DrawMathHarness")).deploy()) as unknown as DrawMathHarness;
  return { ...f, harness };
}

function listCommitmentOf(v: VectorCase): string {
  return v.entrants ? v.entrants.entrantsCommitment : v.winners.fingerprint;
}

/** The vector's slot, or (for an older vector file) keccak256 of a made-up drawing id. */
function slotOfVector(v: VectorCase): string {
  return v.slot ?? slotOf(v.drawingId ?? `drw_vector_${v.name}`);
}

describe("PrizeDraw reproduces the shared draw vectors", () => {
  it("has vectors to check", () => {
    expect(vectors.cases.length).to.be.greaterThan(5);
  });

  for (const v of vectors.cases) {
    const { inputs, expected } = v;
    const tableId = zeroPadBytes(toUtf8Bytes(inputs.table.id), 32);
    const num = BigInt(inputs.number);

    it(`${v.name}: ids, fingerprint, slot and user random number derive as the spec says`, () => {
      expect(campaignIdOf(inputs.slug)).to.equal(inputs.campaignId);
      expect(winnersFingerprint(v.winners.ids)).to.equal(v.winners.fingerprint);
      if (v.drawingId !== undefined) expect(slotOf(v.drawingId)).to.equal(v.slot);
      if (v.listCommitment !== undefined) expect(v.listCommitment).to.equal(listCommitmentOf(v));
      if (v.userRandomNumber !== undefined) {
        expect(userRandomNumberOf(inputs.campaignId, num, slotOfVector(v), listCommitmentOf(v))).to.equal(v.userRandomNumber);
      }
      for (const r of expected.results) {
        const independent = expectedRoll(inputs.entropy, inputs.campaignId, num, BigInt(r.position), BigInt(inputs.table.denominator));
        expect([independent.randomValue, Number(independent.roll)]).to.deep.equal([r.randomValue, r.roll]);
      }
    });

    it(`${v.name}: DrawMath rolls, rejection floor, table thresholds and tiers (onchain views)`, async () => {
      const f = await loadFixture(vectorFixture);
      if (inputs.table.id !== "default" || inputs.table.version !== 1) {
        await f.draw.connect(f.operator).publishPrizeTable(tableId, inputs.table.version, inputs.table.amountsCents, inputs.table.weights);
      }
      const [denominator, , , thresholds] = await f.draw.getPrizeTable(tableId, inputs.table.version);
      expect(denominator).to.equal(BigInt(inputs.table.denominator));
      expect(thresholds.map(Number)).to.deep.equal(inputs.table.thresholds);
      if (inputs.table.rejectionFloor !== undefined) {
        expect(await f.harness.rejectionFloor(inputs.table.denominator)).to.equal(BigInt(inputs.table.rejectionFloor));
      }
      expect(await f.harness.userRandomNumber(inputs.campaignId, num, slotOfVector(v), listCommitmentOf(v))).to.equal(
        v.userRandomNumber ?? userRandomNumberOf(inputs.campaignId, num, slotOfVector(v), listCommitmentOf(v)),
      );
      for (const r of expected.results) {
        const [randomValue, roll] = await f.harness.roll(inputs.entropy, inputs.campaignId, num, r.position, inputs.table.denominator);
        expect(randomValue).to.equal(r.randomValue);
        expect(Number(roll)).to.equal(r.roll);
        const [tier, amount] = await f.draw.tierOf(tableId, inputs.table.version, roll);
        // tierOf is before the top-prize-once rule: a demoted top roll reads tier 0 here and 1 in the result.
        expect([Number(tier), Number(amount)]).to.satisfy(
          ([t, a]: number[]) => (t === r.tier && a === r.amountCents) || (t === 0 && r.tier === 1),
        );
      }
    });

    // Numbers are gapless onchain: earlier drawings are committed first, so only small numbers run the full cycle.
    if (num <= MAX_ONCHAIN_NUMBER) {
      // The contract mixes the commit block's hash into Entropy's value, which no test can choose: the prizes are
      // checked against those of the value the reveal reports, after checking that value against the block.
      it(`${v.name}: a real commit and reveal mixes the commit block's hash in, and emits the prizes of that value`, async () => {
        const f = await loadFixture(vectorFixture);
        if (inputs.table.id !== "default" || inputs.table.version !== 1) {
          await f.draw.connect(f.operator).publishPrizeTable(tableId, inputs.table.version, inputs.table.amountsCents, inputs.table.weights);
        }
        if (inputs.campaignId === f.campaignId) {
          await f.draw.connect(f.operator).setLargePrizeThreshold(f.campaignId, inputs.largePrizeThresholdCents);
        } else {
          await f.draw.connect(f.operator).registerCampaign(inputs.campaignId, f.wallet.address, inputs.largePrizeThresholdCents, 0, 0);
        }
        for (let filler = 1n; filler < num; filler++) {
          await commit(f, commitArgs(inputs.campaignId, filler, { slot: slotOf(`drw_filler_${filler}`) }));
        }
        const slot = slotOfVector(v);
        const args = v.entrants
          ? commitArgs(inputs.campaignId, num, {
              slot,
              kind: KIND_ENTRANTS,
              listCommitment: v.entrants.entrantsCommitment,
              winnersExpected: inputs.count,
              entrantCount: v.entrants.count,
              totalWeight: BigInt(v.entrants.totalWeight),
              tableId,
              tableVersion: inputs.table.version,
            })
          : commitArgs(inputs.campaignId, num, {
              slot,
              kind: KIND_WINNERS,
              listCommitment: v.winners.fingerprint,
              winnersExpected: inputs.count,
              tableId,
              tableVersion: inputs.table.version,
            });
        const sequence = await commit(f, args);
        const requested = await f.draw.queryFilter(f.draw.filters.EntropyRequested(inputs.campaignId, num));
        expect(requested).to.have.length(1);
        const user = userRandomNumberOf(inputs.campaignId, num, slot, listCommitmentOf(v));
        expect(requested[0].args.userRandomNumber).to.equal(user);
        if (v.userRandomNumber !== undefined) expect(requested[0].args.userRandomNumber).to.equal(v.userRandomNumber);
        expect(await f.draw.numberOfSlot(inputs.campaignId, slot)).to.equal(num);

        // A case whose value is a drawing value reveals that value's Entropy value; any other its own value.
        const origin = (vectors.drawValue ?? []).find((d) => d.caseName === v.name);
        const entropyValue = origin ? origin.entropyValue : inputs.entropy;
        const requestBlock = (await f.mock.getRequestV2(f.provider.address, sequence)).blockNumber;
        const receipt = await reveal(f, sequence, entropyValue);
        const [revealed, ...more] = findEvents(f, receipt, "EntropyRevealed");
        expect(more).to.have.length(0);
        const blockHash = (await ethers.provider.getBlock(Number(requestBlock)))!.hash!;
        const value = keccak256(AbiCoder.defaultAbiCoder().encode(["bytes32", "bytes32"], [entropyValue, blockHash]));
        expect([revealed.args.entropyValue, revealed.args.requestBlockHash, revealed.args.randomValue]).to.deep.equal([entropyValue, blockHash, value]);
        expect(await f.harness.drawValue(entropyValue, blockHash)).to.equal(value);
        const prizes = awarded(f, receipt);
        const plain = (p: { position: bigint | number; randomValue: string; roll: bigint | number; tier: bigint | number; amountCents: bigint | number; held: boolean }) => ({
          position: Number(p.position),
          randomValue: p.randomValue,
          roll: Number(p.roll),
          tier: Number(p.tier),
          amountCents: Number(p.amountCents),
          held: p.held,
        });
        const fromValue = expectedPrizes(
          value,
          inputs.campaignId,
          num,
          expected.prizeCount,
          inputs.table.amountsCents.map(BigInt),
          inputs.table.weights.map(BigInt),
          BigInt(inputs.largePrizeThresholdCents),
        );
        expect(prizes.map(plain)).to.deep.equal(fromValue.map(plain));
        expect(prizes).to.have.length(expected.prizeCount);
        expect(findEvents(f, receipt, "DrawingSettled")).to.have.length(1);
        const d = await f.draw.getDrawing(inputs.campaignId, num);
        expect(d.prizeCount).to.equal(BigInt(expected.prizeCount));
        expect(d.status).to.equal(STATUS.Settled);
        expect(d.randomValue).to.equal(value);
        // prizeAt recomputes the same prizes from stored data.
        for (const r of fromValue.map(plain)) {
          const p = await f.draw.prizeAt(inputs.campaignId, num, r.position);
          expect(plain({ position: r.position, randomValue: p.randomValue, roll: p.roll, tier: p.tier, amountCents: p.amountCents, held: p.held })).to.deep.equal(r);
        }
      });
    }
  }

  describe("batch contributions (one randomness request for several drawings)", () => {
    const batches = vectors.batches ?? [];

    it("has batches of 1, 2 and 5 drawings", () => {
      expect(batches.map((b) => b.members.length)).to.include.members([1, 2, 5]);
    });

    for (const b of batches) {
      it(`${b.name}: members' user random numbers and the batch's (ethers and DrawMathHarness)`, async () => {
        const f = await loadFixture(vectorFixture);
        const contributions = b.members.map((m) => m.userRandomNumber);
        for (const m of b.members) {
          expect(campaignIdOf(m.slug)).to.equal(m.campaignId);
          expect(slotOf(m.drawingId)).to.equal(m.slot);
          expect(userRandomNumberOf(m.campaignId, BigInt(m.number), m.slot, m.listCommitment)).to.equal(m.userRandomNumber);
        }
        const independent =
          contributions.length === 1 ? contributions[0] : solidityPackedKeccak256(contributions.map(() => "bytes32"), contributions);
        expect(independent).to.equal(b.userRandomNumber);
        expect(await f.harness.batchUserRandomNumber(contributions)).to.equal(b.userRandomNumber);
      });

      it(`${b.name}: commitAndRequest of the batch requests with the vector's user random number`, async () => {
        const f = await loadFixture(vectorFixture);
        for (const campaignId of new Set(b.members.map((m) => m.campaignId))) {
          if (campaignId !== f.campaignId) await f.draw.connect(f.operator).registerCampaign(campaignId, f.wallet.address, 50_000, 0, 0);
        }
        const args = b.members.map((m) => commitArgs(m.campaignId, BigInt(m.number), { slot: m.slot, listCommitment: m.listCommitment }));
        const receipt = await (await sendBatch(f, args)).wait();
        const requested = findEvents(f, receipt!, "EntropyRequested");
        expect(requested).to.have.length(b.members.length);
        requested.forEach((e, i) => {
          expect([e.args.campaignId, e.args.number]).to.deep.equal([b.members[i]!.campaignId, BigInt(b.members[i]!.number)]);
          expect(e.args.userRandomNumber).to.equal(b.userRandomNumber);
          expect([e.args.batchIndex, e.args.batchSize]).to.deep.equal([BigInt(i), BigInt(b.members.length)]);
          expect(e.args.sequence).to.equal(requested[0]!.args.sequence);
        });
      });
    }
  });

  describe("re-request contributions (PrizeDraw.reRequest)", () => {
    const reRequests = vectors.reRequest ?? [];
    const coder = AbiCoder.defaultAbiCoder();

    it("has re-request vectors, the zero and the largest sequence among them", () => {
      expect(reRequests.length).to.be.greaterThanOrEqual(4);
      expect(reRequests.map((r) => BigInt(r.previousSequence))).to.include.members([0n, 2n ** 64n - 1n]);
    });

    for (const r of reRequests) {
      it(`${r.name}: DrawMath.reRequestUserRandomNumber (DrawMathHarness) and abi.encode through ethers`, async () => {
        const f = await loadFixture(vectorFixture);
        const sequence = BigInt(r.previousSequence);
        expect(keccak256(coder.encode(["address", "uint64"], [r.previousProvider, sequence]))).to.equal(r.userRandomNumber);
        expect(await f.harness.reRequestUserRandomNumber(r.previousProvider, sequence)).to.equal(r.userRandomNumber);
      });
    }

    it("a real re-request of a timed-out drawing asks Entropy with DrawMath's contribution of the commit's request", async () => {
      const f = await loadFixture(vectorFixture);
      const sequence = await commit(f, commitArgs(f.campaignId, 1n, { slot: slotOf("drw_vector_re_request") }));
      const requestBlock = (await f.mock.getRequestV2(f.provider.address, sequence)).blockNumber;
      const latest = BigInt(await ethers.provider.getBlockNumber());
      const due = requestBlock + BigInt(REVEAL_TIMEOUT_BLOCKS);
      if (due > latest) await mine(due - latest);
      const receipt = (await (await f.draw.connect(f.operator).reRequest(f.campaignId, 1n, 0)).wait())!;
      const [event] = findEvents(f, receipt, "EntropyReRequested");
      expect([event.args.previousProvider, event.args.previousSequence]).to.deep.equal([f.provider.address, sequence]);
      expect(event.args.userRandomNumber).to.equal(await f.harness.reRequestUserRandomNumber(f.provider.address, sequence));
      expect(event.args.userRandomNumber).to.equal(keccak256(coder.encode(["address", "uint64"], [f.provider.address, sequence])));
      // Entropy's own record of the new request carries it too.
      const mockAddress = await f.mock.getAddress();
      const requested = receipt.logs
        .filter((l) => l.address === mockAddress)
        .map((l) => f.mock.interface.parseLog(l))
        .filter((l) => l?.name === "Requested");
      expect(requested).to.have.length(1);
      expect([requested[0]!.args.sequenceNumber, requested[0]!.args.userContribution]).to.deep.equal([event.args.sequence, event.args.userRandomNumber]);
    });
  });

  describe("drawing values (DrawMath.drawValue, proof version 6)", () => {
    const drawValues = vectors.drawValue ?? [];
    const coder = AbiCoder.defaultAbiCoder();

    it("has drawing values, the zero and the all-ones words among them", () => {
      expect(drawValues.length).to.be.greaterThanOrEqual(5);
      const pairs = drawValues.map((d) => [d.entropyValue, d.requestBlockHash].join("/"));
      const zero = ethers.ZeroHash;
      const ones = `0x${"ff".repeat(32)}`;
      expect(pairs).to.include.members([`${zero}/${zero}`, `${ones}/${ones}`]);
    });

    for (const d of drawValues) {
      it(`${d.name}: DrawMath.drawValue (DrawMathHarness) and abi.encode through ethers`, async () => {
        const f = await loadFixture(vectorFixture);
        expect(keccak256(coder.encode(["bytes32", "bytes32"], [d.entropyValue, d.requestBlockHash]))).to.equal(d.drawValue);
        expect(await f.harness.drawValue(d.entropyValue, d.requestBlockHash)).to.equal(d.drawValue);
        if (d.caseName !== null) {
          const c = vectors.cases.find((x) => x.name === d.caseName);
          expect(c?.inputs.entropy, `case ${d.caseName}`).to.equal(d.drawValue);
        }
      });
    }
  });

  it("Entropy v2's combination of user and provider values matches the vectors (TS and TestEntropyV2)", async () => {
    const cases = vectors.combine ?? [];
    const entropy = (await (await ethers.getContractFactory("TestEntropyV2")).deploy(
      (await ethers.getSigners())[5].address,
      0,
    )) as unknown as TestEntropyV2;
    for (const c of cases) {
      expect(combineRandomValues(c.user, c.provider)).to.equal(c.randomNumber);
      expect(await entropy.combineRandomValues(c.user, c.provider, ethers.ZeroHash)).to.equal(c.randomNumber);
    }
  });
});
