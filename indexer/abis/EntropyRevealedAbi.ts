// Pyth Entropy v2's Revealed event (EntropyEventsV2.sol in @pythnetwork/entropy-sdk-solidity): the only Entropy
// log the indexer reads. It carries both contributions, which a proof repeats so a verifier can recombine them.
export const EntropyRevealedAbi = [
  {
    type: "event",
    name: "Revealed",
    anonymous: false,
    inputs: [
      { indexed: true, name: "provider", type: "address" },
      { indexed: true, name: "caller", type: "address" },
      { indexed: true, name: "sequenceNumber", type: "uint64" },
      { indexed: false, name: "randomNumber", type: "bytes32" },
      { indexed: false, name: "userContribution", type: "bytes32" },
      { indexed: false, name: "providerContribution", type: "bytes32" },
      { indexed: false, name: "callbackFailed", type: "bool" },
      { indexed: false, name: "callbackReturnValue", type: "bytes" },
      { indexed: false, name: "callbackGasUsed", type: "uint32" },
      { indexed: false, name: "extraArgs", type: "bytes" },
    ],
  },
] as const;
