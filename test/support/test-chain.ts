/** A local EVM chain for a test file, the test token compiled while its node starts in its own process (each takes seconds). */
import { randomUUID } from 'node:crypto';
import { createTestClient, http } from 'viem';
import { compileTestToken, type LocalChain, startLocalChain } from '../../infra/chain/local-chain.js';
import { ensureTable } from '../../infra/local/dynamodb.js';
import { dynamoClient } from '../../shared/store/dynamo.js';
import { TABLES, tableEnvVar } from '../../shared/store/tables.js';

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

/**
 * Names a chain table of the file's own in the environment and makes it. The run's table holds one
 * cursor per network for every file's node: another file's watcher, running at the same time on its
 * own node, would move this file's cursor past its head or back. Call it before anything reads the
 * configuration.
 */
export async function ownChainTable(): Promise<void> {
  const name = `chain-${randomUUID().slice(0, 8)}`;
  process.env[tableEnvVar('chain')] = name;
  await ensureTable(dynamoClient, name, TABLES.chain);
}
