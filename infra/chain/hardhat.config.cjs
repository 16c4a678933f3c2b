/**
 * The Hardhat network behind the local chain tooling (local-chain.ts, `npm run chain`). CommonJS:
 * Hardhat 2 loads its configuration with require(), and package.json makes .js files ES modules.
 */
module.exports = {
  networks: {
    hardhat: {
      // Sepolia's id: the demo stage's payment URIs (shared/domain/chains/networks.ts) name it for ethereum.
      // Another demo network's id for a node that stands in for that network (local-chain.ts).
      chainId: Number(process.env.GATEWAY_HARDHAT_CHAIN_ID || 11155111),
      // Each transaction is mined at once in a block of its own; no blocks otherwise. Empty blocks
      // come on demand (hardhat_mine, evm_mine); batches switch automine off around one block.
      mining: { auto: true, interval: 0 },
      // The node prints each RPC call and the transactions it mines.
      loggingEnabled: true,
    },
  },
};
