import { subtask } from "hardhat/config";
import { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } from "hardhat/builtin-tasks/task-names";
import type { HardhatUserConfig } from "hardhat/config";
import "@nomicfoundation/hardhat-toolbox";

const SOLC_VERSION = "0.8.28";

// No machine here can download a compiler: use the soljson.js of the npm `solc` package,
// whose version must equal SOLC_VERSION (package.json pins it).
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args: { solcVersion: string }, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solcPackageVersion: string = require("solc/package.json").version;
  if (solcPackageVersion !== SOLC_VERSION) {
    throw new Error(`npm package solc is ${solcPackageVersion}, hardhat.config.ts expects ${SOLC_VERSION}`);
  }
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: SOLC_VERSION,
    longVersion: SOLC_VERSION,
  };
});

const config: HardhatUserConfig = {
  solidity: {
    version: SOLC_VERSION,
    settings: {
      // MockEntropy (the SDK's) does not compile without the optimizer. viaIR keeps PrizeDraw (batched commits
      // and payouts) under the 24,576-byte code limit: 21.0 KB through the IR pipeline, 25.7 KB without.
      optimizer: { enabled: true, runs: 200 }, viaIR: true,
      evmVersion: "cancun",
    },
  },
  paths: {
    sources: "./contracts",
    tests: "./test/contracts",
    cache: "./cache",
    artifacts: "./artifacts",
  },
  networks: {
    hardhat: {},
    localhost: { url: process.env.RPC_URL ?? `http://127.0.0.1:${process.env.CHAIN_PORT ?? "8545"}` },
    ...(process.env.DEPLOY_RPC_URL
      ? { custom: { url: process.env.DEPLOY_RPC_URL, accounts: process.env.DEPLOYER_PRIVATE_KEY ? [process.env.DEPLOYER_PRIVATE_KEY] : [] } }
      : {}),
  },
  mocha: { timeout: 120_000 },
};

export default config;
