/**
 * `{dataDir}/runtime.json`: where a running local stack can be reached. The runtime writes it
 * once it serves and removes it when it stops; the merchant admin CLI finds the stack through it.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { Chains, EvmChain, NetworkChain } from '../../shared/domain/chains/index.js';
import { CRYPTO_ASSETS, CRYPTO_NETWORKS, type CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { STAGES } from '../../shared/stage.js';
import { TABLE_KEYS, type TableKey } from '../../shared/store/tables.js';
import { readJsonFile } from './json-file.js';

/** A network the stack has a node of, as its watcher is given it: the endpoints, the chain id (EVM), the token contracts, Tron's API key. */
const chainEndpointsSchema = z.object({
  rpcUrl: z.string(),
  chainId: z.number().int().optional(),
  apiKey: z.string().optional(),
  tokens: z.partialRecord(z.enum(Object.keys(CRYPTO_ASSETS) as [keyof typeof CRYPTO_ASSETS]), z.object({ address: z.string(), decimals: z.number().int() })),
});
export type ChainEndpoints = z.infer<typeof chainEndpointsSchema>;

const runtimeInfoSchema = z.object({
  stage: z.enum(STAGES),
  baseUrl: z.string(),
  region: z.string(),
  dynamodbEndpoint: z.string(),
  sqsEndpoint: z.string(),
  tables: z.object(Object.fromEntries(TABLE_KEYS.map((key) => [key, z.string()])) as Record<TableKey, z.ZodString>),
  /** The networks the stack reads, with their nodes: what the admin CLI reads the treasury through. */
  chains: z.partialRecord(z.enum(CRYPTO_NETWORKS), chainEndpointsSchema),
  /** The vault's key file the functions seal and open secrets with. */
  vaultKeyFile: z.string(),
  pid: z.number().int(),
  /** The DynamoDB Local the runtime started: a runtime killed outright leaves it running. */
  dynamodbPid: z.number().int().optional(),
});

export type RuntimeInfo = z.infer<typeof runtimeInfoSchema>;

/** The networks of `chains` that have a node, with what reading them takes. */
export function chainEndpointsOf(chains: Chains): Partial<Record<CryptoNetwork, ChainEndpoints>> {
  return Object.fromEntries(
    CRYPTO_NETWORKS.flatMap((network) => {
      const { rpcUrl, tokens, apiKey, chainId } = chains[network] as NetworkChain & Partial<Pick<EvmChain, 'chainId'>>;
      return rpcUrl === undefined ? [] : [[network, { rpcUrl, tokens, ...(chainId === undefined ? {} : { chainId }), ...(apiKey === undefined ? {} : { apiKey }) }]];
    }),
  );
}

export const runtimeInfoFile = (dataDir: string): string => join(dataDir, 'runtime.json');

export async function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): Promise<void> {
  await writeFile(runtimeInfoFile(dataDir), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export async function removeRuntimeInfo(dataDir: string): Promise<void> {
  await rm(runtimeInfoFile(dataDir), { force: true });
}

/** Whether a process with this id exists (signal 0 only checks). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The stack serving from `dataDir`, or undefined when none is running there. */
export async function readRunningStack(dataDir: string): Promise<RuntimeInfo | undefined> {
  const info = await readRuntimeInfo(dataDir);
  // A runtime killed without the chance to clean up leaves its file behind.
  return info && isProcessAlive(info.pid) ? info : undefined;
}

/** What `{dataDir}/runtime.json` says, whether or not its runtime still runs. */
export const readRuntimeInfo = (dataDir: string): Promise<RuntimeInfo | undefined> => readJsonFile(runtimeInfoFile(dataDir), runtimeInfoSchema, 'is not a runtime description; remove it');
