// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

// Imported so Hardhat emits an artifact for the SDK's MockEntropy (tests and the local stack deploy it).
import {MockEntropy} from "@pythnetwork/entropy-sdk-solidity/MockEntropy.sol";
