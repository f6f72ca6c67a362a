import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { anyUint, anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { concat, keccak256, ZeroAddress, type ContractTransactionResponse, type EventLog } from "ethers";
import type { TestEntropyConsumer, TestEntropyV2 } from "../../typechain-types";
import { combineRandomValues, deployTestEntropy, hashChain, providerRevelation } from "./entropyV2";
import { randomBytes32 } from "./helpers";

const FEE = 1_000n;
const PYTH_FEE = 7n;
const DEFAULT_GAS = 100_000;
const STATUS = { NOT_STARTED: 1n, IN_PROGRESS: 2n, FAILED: 3n };

/** A TestEntropyConsumer that requests from `entropy`. */
async function consumerOf(entropy: TestEntropyV2): Promise<TestEntropyConsumer> {
  return (await (await ethers.getContractFactory("TestEntropyConsumer")).deploy(await entropy.getAddress())) as unknown as TestEntropyConsumer;
}

async function fixture() {
  const [deployer, alice, bob] = await ethers.getSigners();
  const t = await deployTestEntropy(deployer, { feeInWei: FEE, pythFeeInWei: PYTH_FEE, defaultGasLimit: DEFAULT_GAS, chainLength: 64 });
  return { ...t, deployer, alice, bob, consumer: await consumerOf(t.entropy) };
}

type F = Awaited<ReturnType<typeof fixture>>;

async function requestedEvent(entropy: TestEntropyV2, tx: ContractTransactionResponse) {
  const receipt = (await tx.wait())!;
  for (const log of receipt.logs) {
    const parsed = entropy.interface.parseLog(log);
    if (parsed?.name === "Requested") {
      return {
        sequence: parsed.args.sequenceNumber as bigint,
        userContribution: parsed.args.userContribution as string,
        gasLimit: parsed.args.gasLimit as bigint,
      };
    }
  }
  throw new Error("no Requested event");
}

/** The consumer requests with its own user number; returns the sequence and the user number. */
async function request(f: F, gasLimit: number, user = randomBytes32()) {
  const fee = await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, gasLimit);
  const tx = await f.consumer.request(f.providerAddress, user, gasLimit, { value: fee });
  const { sequence } = await requestedEvent(f.entropy, tx);
  return { sequence, user };
}

function revealedArgs(receiptLogs: readonly unknown[], entropy: TestEntropyV2) {
  for (const log of receiptLogs as EventLog[]) {
    const parsed = entropy.interface.parseLog(log);
    if (parsed?.name === "Revealed") return parsed.args;
  }
  throw new Error("no Revealed event");
}

describe("TestEntropyV2", () => {
  describe("hash chain helpers", () => {
    it("builds x_i = keccak256(x_{i+1}) from the seed and picks x_{sequence - start}", () => {
      const chain = hashChain(ethers.ZeroHash, 4);
      expect(chain[3]).to.equal(keccak256(ethers.ZeroHash));
      for (let i = 0; i < 3; i++) expect(chain[i]).to.equal(keccak256(chain[i + 1]));
      expect(providerRevelation(chain, 1n, 0n)).to.equal(chain[1]);
      expect(providerRevelation(chain, 7n, 5n)).to.equal(chain[2]);
      expect(() => providerRevelation(chain, 5n, 5n)).to.throw(RangeError);
      expect(() => providerRevelation(chain, 4n, 0n)).to.throw(RangeError);
    });

    it("combines like the contract: keccak256(user ‖ provider ‖ bytes32(0))", async () => {
      const f = await loadFixture(fixture);
      const [u, p] = [randomBytes32(), randomBytes32()];
      expect(combineRandomValues(u, p)).to.equal(await f.entropy.combineRandomValues(u, p, ethers.ZeroHash));
      expect(combineRandomValues(u, p)).to.equal(keccak256(concat([u, p, ethers.ZeroHash])));
    });
  });

  describe("registration", () => {
    it("commits x_0 at sequence 0 and hands out sequence numbers from 1", async () => {
      const f = await loadFixture(fixture);
      const info = await f.entropy.getProviderInfoV2(f.providerAddress);
      expect(info.originalCommitment).to.equal(f.chain[0]);
      expect(info.currentCommitment).to.equal(f.chain[0]);
      expect(info.originalCommitmentSequenceNumber).to.equal(0n);
      expect(info.sequenceNumber).to.equal(1n);
      expect(info.endSequenceNumber).to.equal(64n);
      expect(info.feeInWei).to.equal(FEE);
      expect(info.defaultGasLimit).to.equal(BigInt(DEFAULT_GAS));
      expect(await f.entropy.getDefaultProvider()).to.equal(f.providerAddress);
      const { sequence } = await request(f, 0);
      expect(sequence).to.equal(1n);
      expect((await request(f, 0)).sequence).to.equal(2n);
    });

    it("rotates the commitment on re-registration; in-flight requests keep the old chain", async () => {
      const f = await loadFixture(fixture);
      const old = await request(f, 0); // sequence 1, old chain
      const newChain = hashChain(randomBytes32(), 10);
      await expect(f.entropy.connect(f.provider).register(FEE, newChain[0], 10, DEFAULT_GAS))
        .to.emit(f.entropy, "Registered")
        .withArgs(f.providerAddress, "0x");
      const info = await f.entropy.getProviderInfoV2(f.providerAddress);
      expect(info.originalCommitmentSequenceNumber).to.equal(2n);
      expect(info.endSequenceNumber).to.equal(12n);
      const next = await request(f, 0);
      expect(next.sequence).to.equal(3n);
      await f.entropy.revealWithCallback(f.providerAddress, next.sequence, next.user, providerRevelation(newChain, 3n, 2n));
      await f.reveal(old.sequence, old.user);
      expect(await f.consumer.callbackCount()).to.equal(2n);
    });

    it("runs out of randomness at the end of the chain and refuses unknown providers", async () => {
      const f = await loadFixture(fixture);
      const short = await deployTestEntropy(f.deployer, { chainLength: 3 });
      const consumer = await consumerOf(short.entropy);
      await consumer.request(short.providerAddress, randomBytes32(), 0, { value: FEE });
      await consumer.request(short.providerAddress, randomBytes32(), 0, { value: FEE });
      await expect(
        consumer.request(short.providerAddress, randomBytes32(), 0, { value: FEE }),
      ).to.be.revertedWithCustomError(short.entropy, "OutOfRandomness");
      await expect(consumer.request(f.alice.address, randomBytes32(), 0)).to.be.revertedWithCustomError(
        short.entropy,
        "NoSuchProvider",
      );
      await expect(short.entropy.register(1, ethers.ZeroHash, 0, 0)).to.be.revertedWithCustomError(
        short.entropy,
        "AssertionFailure",
      );
    });
  });

  describe("fees and gas limits", () => {
    it("scales the provider fee by the gas limit rounded up to 10k, never below the default", async () => {
      const f = await loadFixture(fixture);
      const e = f.entropy;
      const fee = (g: number) => e["getFeeV2(address,uint32)"](f.providerAddress, g);
      expect(await e["getFeeV2()"]()).to.equal(FEE + PYTH_FEE);
      expect(await e["getFeeV2(uint32)"](0)).to.equal(FEE + PYTH_FEE);
      expect(await fee(0)).to.equal(FEE + PYTH_FEE);
      expect(await fee(50_000)).to.equal(FEE + PYTH_FEE);
      expect(await fee(100_000)).to.equal(FEE + PYTH_FEE);
      // 100,001 rounds up to 110,000: 1000 + 10,000 * 1000 / 100,000
      expect(await fee(100_001)).to.equal(1_100n + PYTH_FEE);
      expect(await fee(110_000)).to.equal(1_100n + PYTH_FEE);
      expect(await fee(250_000)).to.equal(2_500n + PYTH_FEE);
      expect(await e["getFeeV2(uint32)"](250_000)).to.equal(2_500n + PYTH_FEE);
      // An unregistered provider: only the protocol fee.
      expect(await e["getFeeV2(address,uint32)"](f.alice.address, 500_000)).to.equal(PYTH_FEE);
      await expect(fee(655_350_001)).to.be.revertedWithCustomError(e, "MaxGasLimitExceeded");
      expect(await fee(655_350_000)).to.equal(FEE + ((655_350_000n - 100_000n) * FEE) / 100_000n + PYTH_FEE);
    });

    it("stores gasLimit10k rounded up, with 0 and smaller limits meaning the provider's default", async () => {
      const f = await loadFixture(fixture);
      const cases: [number, bigint][] = [
        [0, 100_000n],
        [1, 100_000n],
        [99_999, 100_000n],
        [100_001, 110_000n],
        [123_456, 130_000n],
        [2_000_000, 2_000_000n],
      ];
      for (const [asked, effective] of cases) {
        const fee = await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, asked);
        const tx = await f.consumer.request(f.providerAddress, randomBytes32(), asked, { value: fee });
        const ev = await requestedEvent(f.entropy, tx);
        expect(ev.gasLimit, `gas limit ${asked}`).to.equal(effective);
        const req = await f.entropy.getRequestV2(f.providerAddress, ev.sequence);
        expect(req.gasLimit10k).to.equal(effective / 10_000n);
      }
      // A default that is not a multiple of 10k is rounded up too.
      await f.entropy.connect(f.provider).setDefaultGasLimit(105_000);
      const ev = await requestedEvent(f.entropy, await f.consumer.request(f.providerAddress, randomBytes32(), 0, { value: FEE + PYTH_FEE }));
      expect(ev.gasLimit).to.equal(110_000n);
    });

    it("reverts a request that pays less than the fee, and keeps overpayment as protocol fee", async () => {
      const f = await loadFixture(fixture);
      const fee = await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, 300_000);
      await expect(
        f.consumer.request(f.providerAddress, randomBytes32(), 300_000, { value: fee - 1n }),
      ).to.be.revertedWithCustomError(f.entropy, "InsufficientFee");
      // Paying the default-limit fee is not enough for a larger limit.
      await expect(
        f.consumer.request(f.providerAddress, randomBytes32(), 300_000, { value: FEE + PYTH_FEE }),
      ).to.be.revertedWithCustomError(f.entropy, "InsufficientFee");
      await f.consumer.request(f.providerAddress, randomBytes32(), 300_000, { value: fee + 5n });
      expect((await f.entropy.getProviderInfoV2(f.providerAddress)).accruedFeesInWei).to.equal(3_000n);
      expect(await f.entropy.getAccruedPythFees()).to.equal(PYTH_FEE + 5n);
    });
  });

  describe("request and reveal", () => {
    it("stores the request and emits Requested with the user contribution and effective gas limit", async () => {
      const f = await loadFixture(fixture);
      const user = randomBytes32();
      const fee = await f.entropy["getFeeV2(address,uint32)"](f.providerAddress, 150_000);
      await expect(f.consumer.request(f.providerAddress, user, 150_000, { value: fee }))
        .to.emit(f.entropy, "Requested")
        .withArgs(f.providerAddress, await f.consumer.getAddress(), 1n, user, 150_000n, "0x");
      const req = await f.entropy.getRequestV2(f.providerAddress, 1n);
      expect(req.provider).to.equal(f.providerAddress);
      expect(req.sequenceNumber).to.equal(1n);
      expect(req.numHashes).to.equal(1n);
      expect(req.commitment).to.equal(keccak256(concat([keccak256(user), f.chain[0]])));
      expect(req.requester).to.equal(await f.consumer.getAddress());
      expect(req.useBlockhash).to.equal(false);
      expect(req.callbackStatus).to.equal(STATUS.NOT_STARTED);
      expect(req.gasLimit10k).to.equal(15n);
    });

    it("reveals: Revealed carries both contributions and the combined number, the callback gets it, the request is cleared", async () => {
      const f = await loadFixture(fixture);
      const a = await request(f, 0);
      const b = await request(f, 0);
      // Reveal out of order: sequence 2 first (2 hashes to x_0), then 1.
      for (const r of [b, a]) {
        const revelation = f.revelation(r.sequence);
        const random = combineRandomValues(r.user, revelation);
        await expect(f.entropy.connect(f.alice).revealWithCallback(f.providerAddress, r.sequence, r.user, revelation))
          .to.emit(f.entropy, "Revealed")
          .withArgs(f.providerAddress, await f.consumer.getAddress(), r.sequence, random, r.user, revelation, false, "0x", anyUint, "0x")
          .and.to.emit(f.consumer, "CallbackReceived");
        expect(await f.consumer.randomNumberOf(r.sequence)).to.equal(random);
        expect((await f.entropy.getRequestV2(f.providerAddress, r.sequence)).sequenceNumber).to.equal(0n);
        await expect(f.reveal(r.sequence, r.user)).to.be.revertedWithCustomError(f.entropy, "NoSuchRequest");
      }
      const info = await f.entropy.getProviderInfoV2(f.providerAddress);
      expect(info.currentCommitmentSequenceNumber).to.equal(2n);
      expect(info.currentCommitment).to.equal(f.chain[2]);
      expect(await f.consumer.callbackCount()).to.equal(2n);
    });

    it("rejects a wrong provider revelation, a wrong user number and an unknown sequence", async () => {
      const f = await loadFixture(fixture);
      const r = await request(f, 0);
      const e = f.entropy;
      await expect(e.revealWithCallback(f.providerAddress, r.sequence, r.user, f.chain[2])).to.be.revertedWithCustomError(e, "IncorrectRevelation");
      await expect(e.revealWithCallback(f.providerAddress, r.sequence, r.user, f.chain[0])).to.be.revertedWithCustomError(e, "IncorrectRevelation");
      await expect(e.revealWithCallback(f.providerAddress, r.sequence, randomBytes32(), f.chain[1])).to.be.revertedWithCustomError(e, "IncorrectRevelation");
      await expect(e.revealWithCallback(f.providerAddress, 9n, r.user, f.chain[9])).to.be.revertedWithCustomError(e, "NoSuchRequest");
      await expect(e.revealWithCallback(f.alice.address, r.sequence, r.user, f.chain[1])).to.be.revertedWithCustomError(e, "NoSuchRequest");
      await f.reveal(r.sequence, r.user);
    });

    it("derives a user contribution for the overloads without one, and uses the default provider", async () => {
      const f = await loadFixture(fixture);
      const e = f.entropy;
      const sent = [
        await f.consumer.requestDefault({ value: await e["getFeeV2()"]() }),
        await f.consumer.requestWithGasLimit(200_000, { value: await e["getFeeV2(uint32)"](200_000) }),
        await f.consumer.requestFromProvider(f.providerAddress, 0, { value: await e["getFeeV2(address,uint32)"](f.providerAddress, 0) }),
      ];
      const events = [];
      for (const tx of sent) events.push(await requestedEvent(e, tx));
      expect(events.map((x) => x.gasLimit)).to.deep.equal([100_000n, 200_000n, 100_000n]);
      expect(new Set(events.map((x) => x.userContribution)).size).to.equal(3);
      for (const ev of events) {
        expect(ev.userContribution).to.not.equal(ethers.ZeroHash);
        await f.reveal(ev.sequence, ev.userContribution);
        expect(await f.consumer.randomNumberOf(ev.sequence)).to.equal(combineRandomValues(ev.userContribution, f.revelation(ev.sequence)));
      }
    });
  });

  describe("callback failures", () => {
    it("records a callback that needs more than its cap as FAILED and keeps the request; anyone retries with full gas", async () => {
      const f = await loadFixture(fixture);
      await f.consumer.setBehaviour(150_000, false);
      const r = await request(f, 100_000);
      const revelation = f.revelation(r.sequence);
      const random = combineRandomValues(r.user, revelation);
      const consumer = await f.consumer.getAddress();

      const tx = await f.reveal(r.sequence, r.user, { gasLimit: 1_000_000 });
      await expect(tx)
        .to.emit(f.entropy, "Revealed")
        .withArgs(f.providerAddress, consumer, r.sequence, random, r.user, revelation, true, "0x", anyUint, "0x");
      await expect(tx).to.emit(f.entropy, "CallbackFailed").withArgs(f.providerAddress, consumer, r.sequence, r.user, revelation, random, "0x");
      const gasUsed = revealedArgs((await tx.wait())!.logs, f.entropy).callbackGasUsed as bigint;
      expect(gasUsed).to.be.greaterThanOrEqual(100_000n).and.lessThan(110_000n);
      expect(await f.consumer.callbackCount()).to.equal(0n);
      const req = await f.entropy.getRequestV2(f.providerAddress, r.sequence);
      expect(req.sequenceNumber).to.equal(r.sequence);
      expect(req.callbackStatus).to.equal(STATUS.FAILED);

      // Retry by someone else with the same values: no cap, the callback runs.
      await expect(f.reveal(r.sequence, r.user, { from: f.bob }))
        .to.emit(f.entropy, "Revealed")
        .withArgs(f.providerAddress, consumer, r.sequence, random, r.user, revelation, false, "0x", anyUint, "0x");
      expect(await f.consumer.callbackCount()).to.equal(1n);
      expect(await f.consumer.randomNumberOf(r.sequence)).to.equal(random);
      expect((await f.entropy.getRequestV2(f.providerAddress, r.sequence)).sequenceNumber).to.equal(0n);
      await expect(f.reveal(r.sequence, r.user, { from: f.bob })).to.be.revertedWithCustomError(f.entropy, "NoSuchRequest");
    });

    it("records a reverting callback with its revert data; a retry that still reverts reverts the whole transaction", async () => {
      const f = await loadFixture(fixture);
      await f.consumer.setBehaviour(0, true);
      const r = await request(f, 0);
      const revertData = f.consumer.interface.encodeErrorResult("CallbackRejected", [r.sequence]);
      await expect(f.reveal(r.sequence, r.user, { gasLimit: 500_000 }))
        .to.emit(f.entropy, "Revealed")
        .withArgs(f.providerAddress, await f.consumer.getAddress(), r.sequence, anyValue, r.user, f.revelation(r.sequence), true, revertData, anyUint, "0x");
      await expect(f.reveal(r.sequence, r.user, { from: f.alice, gasLimit: 500_000 }))
        .to.be.revertedWithCustomError(f.consumer, "CallbackRejected")
        .withArgs(r.sequence);
      expect((await f.entropy.getRequestV2(f.providerAddress, r.sequence)).callbackStatus).to.equal(STATUS.FAILED);
      await f.consumer.setBehaviour(0, false);
      await f.reveal(r.sequence, r.user, { from: f.alice });
      expect(await f.consumer.callbackCount()).to.equal(1n);
    });

    it("reverts with InsufficientGas, recording nothing, when the transaction cannot give the callback its cap", async () => {
      const f = await loadFixture(fixture);
      await f.consumer.setBehaviour(300_000, false);
      const r = await request(f, 500_000);
      await expect(f.reveal(r.sequence, r.user, { gasLimit: 250_000 })).to.be.revertedWithCustomError(f.entropy, "InsufficientGas");
      // Even a callback that reverts with data is not recorded as failed without its full cap available.
      await f.consumer.setBehaviour(0, true);
      await expect(f.reveal(r.sequence, r.user, { gasLimit: 300_000 })).to.be.revertedWithCustomError(f.entropy, "InsufficientGas");
      const req = await f.entropy.getRequestV2(f.providerAddress, r.sequence);
      expect(req.callbackStatus).to.equal(STATUS.NOT_STARTED);
      await f.consumer.setBehaviour(300_000, false);
      await f.reveal(r.sequence, r.user, { gasLimit: 1_000_000 });
      expect(await f.consumer.callbackCount()).to.equal(1n);
    });

    // The consumer's callback costs ~50k gas on top of what it burns (two fresh storage slots and an event), so
    // these run from well under the cap to within a few percent of it.
    for (const [burn, cap] of [
      [0, 100_000],
      [40_000, 100_000],
      [150_000, 250_000],
      [180_000, 250_000],
      [900_000, 1_000_000],
    ] as const) {
      it(`eth_estimateGas finds a gas amount at which the callback runs (burns ${burn} with a ${cap} cap)`, async () => {
        const f = await loadFixture(fixture);
        await f.consumer.setBehaviour(burn, false);
        const r = await request(f, cap);
        const revelation = f.revelation(r.sequence);
        const estimate = await f.entropy
          .connect(f.alice)
          .revealWithCallback.estimateGas(f.providerAddress, r.sequence, r.user, revelation);
        // Sent with exactly the estimate, no padding.
        const tx = await f.entropy.connect(f.alice).revealWithCallback(f.providerAddress, r.sequence, r.user, revelation, { gasLimit: estimate });
        const receipt = (await tx.wait())!;
        expect(receipt.status).to.equal(1);
        const revealed = revealedArgs(receipt.logs, f.entropy);
        expect(revealed.callbackFailed).to.equal(false);
        expect(revealed.callbackGasUsed).to.be.lessThanOrEqual(BigInt(cap) + 5_000n);
        expect(await f.consumer.callbackCount()).to.equal(1n);
        expect(await f.consumer.randomNumberOf(r.sequence)).to.equal(combineRandomValues(r.user, revelation));
        expect((await f.entropy.getRequestV2(f.providerAddress, r.sequence)).sequenceNumber).to.equal(0n);
      });
    }

    it("the shortfall hook makes a callback that fits its cap fail with its full cap, and the retry succeeds", async () => {
      const f = await loadFixture(fixture);
      await expect(f.entropy.connect(f.alice).setCallbackGasShortfall(1)).to.be.revertedWithCustomError(f.entropy, "Unauthorized");
      expect(await f.entropy.callbackGasShortfall()).to.equal(0n);
      await expect(f.entropy.connect(f.deployer).setCallbackGasShortfall(100_000))
        .to.emit(f.entropy, "CallbackGasShortfallSet")
        .withArgs(0n, 100_000n);

      await f.consumer.setBehaviour(150_000, false);
      const r = await request(f, 200_000);
      const receipt = (await (await f.reveal(r.sequence, r.user, { gasLimit: 1_000_000 })).wait())!;
      const revealed = revealedArgs(receipt.logs, f.entropy);
      expect(revealed.callbackFailed).to.equal(true);
      expect(revealed.callbackGasUsed).to.be.lessThan(110_000n);
      expect((await f.entropy.getRequestV2(f.providerAddress, r.sequence)).callbackStatus).to.equal(STATUS.FAILED);
      expect(await f.consumer.callbackCount()).to.equal(0n);

      // The retry is uncapped, so the hook does not affect it.
      await f.reveal(r.sequence, r.user, { from: f.bob });
      expect(await f.consumer.callbackCount()).to.equal(1n);

      // Without the hook the same callback fits its cap.
      await f.entropy.setCallbackGasShortfall(0);
      const again = await request(f, 200_000);
      const ok = (await (await f.reveal(again.sequence, again.user, { gasLimit: 1_000_000 })).wait())!;
      expect(revealedArgs(ok.logs, f.entropy).callbackFailed).to.equal(false);
      expect(await f.consumer.callbackCount()).to.equal(2n);
    });

    it("a provider without a default gas limit gets uncapped callbacks that never record a failure", async () => {
      const f = await loadFixture(fixture);
      const legacy = await deployTestEntropy(f.deployer, { defaultGasLimit: 0 });
      const consumer = await consumerOf(legacy.entropy);
      const user = randomBytes32();
      const ev = await requestedEvent(legacy.entropy, await consumer.request(legacy.providerAddress, user, 500_000, { value: FEE }));
      expect(ev.gasLimit).to.equal(0n);
      await consumer.setBehaviour(0, true);
      await expect(legacy.reveal(ev.sequence, user, { gasLimit: 500_000 })).to.be.revertedWithCustomError(consumer, "CallbackRejected");
      await consumer.setBehaviour(0, false);
      await legacy.reveal(ev.sequence, user);
      expect(await consumer.callbackCount()).to.equal(1n);
    });
  });

  it("refuses a zero default provider", async () => {
    const factory = await ethers.getContractFactory("TestEntropyV2");
    await expect(factory.deploy(ZeroAddress, 0)).to.be.revertedWithCustomError(factory, "AssertionFailure");
  });
});
