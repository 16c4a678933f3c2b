/** A local EVM chain for a test file, the test token compiled while its node starts in its own process (each takes seconds). */
import { compileTestToken, type LocalChain, startLocalChain } from '../../infra/chain/local-chain.js';
import { createTestClient, http } from 'viem';

export async function startChainWithTestToken(): Promise<LocalChain> {
  const [started, compiled] = await Promise.allSettled([startLocalChain(), compileTestToken()]);
  if (started.status === 'rejected') throw started.reason;
  if (compiled.status === 'rejected') {
    await started.value.stop();
    throw compiled.reason;
  }
  return started.value;
}

/** `work` with the node mining nothing on its own: what it sends waits in the pool until the test mines. */
export async function withoutAutomine<T>(chain: Pick<LocalChain, 'rpcUrl'>, work: () => Promise<T>): Promise<T> {
  const node = createTestClient({ mode: 'hardhat', transport: http(chain.rpcUrl, { retryCount: 0 }) });
  await node.setAutomine(false);
  try {
    return await work();
  } finally {
    await node.setAutomine(true);
  }
}
