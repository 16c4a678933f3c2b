/**
 * The stage's configuration (docs/operations.md#stage-configuration): what grows with a stage,
 * kept out of the functions' environment in AWS. Its documents as the functions read them, and
 * how a function keeps them: read when the container loads, read again after the maximum age in
 * the background, the last kept when a read fails. SSM is the one part stood in for: a client
 * that answers GetParameters from a map.
 */
import type { GetParametersCommand, GetParametersCommandOutput, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { defaultStageConfiguration, parseConfig, stageConfigurationOf, type StageConfiguration, type StageConfigurationSource } from '../../shared/config.js';
import { defaultChains } from '../../shared/domain/chains/networks.js';
import { STORED_VALUE_MAX_AGE_MS } from '../../shared/refreshed.js';
import { loadStageConfiguration, ssmParametersReader } from '../../shared/stage-configuration.js';
import { offlineFunctionEnvironment } from '../support/function-environment.js';

const CONFIGURATION = '/payment-gateway/prod/configuration';
const CHAIN_ENDPOINTS = '/payment-gateway/prod/chain-endpoints';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:PaymentProvidersPspOneSecret-AbCdEf';
const PSP_ONE = { id: 'psp-one', url: 'https://psp-one.example/gw/', priority: 1, methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }], secretArn: SECRET_ARN };
const USDT_ON_ETHEREUM = '0x1111111111111111111111111111111111111111';

const base = (): StageConfiguration => {
  const configuration = defaultStageConfiguration('prod');
  configuration.chains.ethereum.watched = true;
  return configuration;
};
const document = (change: Record<string, unknown> = {}): string => JSON.stringify({ providers: [PSP_ONE], tokens: { ethereum: { USDT: USDT_ON_ETHEREUM } }, ...change });

/** An SSM stand-in holding `values` by name, failing while `failing` is set, as a throttled or unreachable SSM would. */
function fakeSsm(values: Record<string, string>) {
  const state = { values, failing: false, requests: [] as string[][] };
  const client = {
    send: async (command: GetParametersCommand): Promise<Partial<GetParametersCommandOutput>> => {
      const names = command.input.Names ?? [];
      state.requests.push(names);
      if (state.failing) throw new Error('Rate exceeded');
      return {
        Parameters: names.filter((name) => name in state.values).map((name) => ({ Name: name, Type: 'String', Value: state.values[name] })),
        InvalidParameters: names.filter((name) => !(name in state.values)),
      };
    },
  } as unknown as Pick<SSMClient, 'send'>;
  return { client, state };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the stage configuration document', () => {
  it('names the providers, each secret by its ARN, and the token contracts replacing the built-in ones', () => {
    const configuration = stageConfigurationOf(base(), { configuration: document() });
    expect(configuration.providers).toEqual([
      { id: 'psp-one', kind: 'protocol', name: 'psp-one', url: 'https://psp-one.example/gw', priority: 1, methods: PSP_ONE.methods, secret: { kind: 'secretsManager', arn: SECRET_ARN } },
    ]);
    expect(configuration.chains.ethereum.tokens).toEqual({ USDT: { address: USDT_ON_ETHEREUM, decimals: 6 } });
    // The environment's part stays: what is watched, the depths; no node without the chain watcher's document.
    expect(configuration.chains.ethereum).toMatchObject({ watched: true, confirmations: 12, rpcUrl: undefined });
    expect(configuration.chains.bsc.tokens).toEqual(defaultChains('prod').bsc.tokens);
  });

  it("gives the chain watcher each network's endpoints, in order, and Tron's key", () => {
    const endpoints = JSON.stringify({ rpc: { ethereum: 'https://a.example/v2/key, https://b.example', tron: 'https://api.trongrid.io' }, tronApiKey: 'key-1' });
    const configuration = stageConfigurationOf(base(), { configuration: document(), chainEndpoints: endpoints });
    expect(configuration.chains.ethereum.rpcUrl).toBe('https://a.example/v2/key,https://b.example');
    expect(configuration.chains.tron).toMatchObject({ rpcUrl: 'https://api.trongrid.io', apiKey: 'key-1', watched: true });
    // No key: the stack writes an empty one.
    expect(stageConfigurationOf(base(), { chainEndpoints: JSON.stringify({ rpc: {}, tronApiKey: '' }) }).chains.tron.apiKey).toBeUndefined();
  });

  it('is refused as the functions refuse it, each problem named by where it is', () => {
    const tryPayments = [{ ...PSP_ONE, methods: [{ currency: 'TRY', method: 'p2p', min: '1', max: '2' }] }];
    expect(() => stageConfigurationOf(base(), { configuration: document({ providers: tryPayments }) })).toThrow(
      'Invalid stage configuration: configuration.providers.0.methods.0.method: is not a method of its currency',
    );
    expect(() => stageConfigurationOf(base(), { configuration: document({ providers: [PSP_ONE, PSP_ONE] }) })).toThrow('configuration.providers: provider ids must be unique');
    expect(() => stageConfigurationOf(base(), { configuration: document({ tokens: { tron: { USDT: USDT_ON_ETHEREUM } } }) })).toThrow('configuration.tokens.tron.USDT: must be a base58check T… address');
    // Bitcoin carries no tokens, and a provider's secret itself never is in a document.
    expect(() => stageConfigurationOf(base(), { configuration: JSON.stringify({ providers: [], tokens: { bitcoin: {} } }) })).toThrow('configuration.tokens');
    expect(() => stageConfigurationOf(base(), { chainEndpoints: JSON.stringify({ rpc: { bsc: 'ftp://node' }, tronApiKey: '' }) })).toThrow('chainEndpoints.rpc.bsc: endpoint 1 must be an http(s) URL');
    expect(() => stageConfigurationOf(base(), { configuration: '{"providers":' })).toThrow('Invalid stage configuration: configuration is not JSON');
  });

  it('is read from SSM by the functions given its parameter, and from the environment otherwise', () => {
    const env = { ...offlineFunctionEnvironment(), GATEWAY_PROVIDERS: undefined, GATEWAY_STAGE_CONFIGURATION_PARAMETER: CONFIGURATION, GATEWAY_CHAIN_ENDPOINTS_PARAMETER: CHAIN_ENDPOINTS };
    expect(parseConfig(env).stageConfiguration).toMatchObject({ kind: 'parameters', parameterNames: { configuration: CONFIGURATION, chainEndpoints: CHAIN_ENDPOINTS } });
    const local = parseConfig({ ...offlineFunctionEnvironment(), GATEWAY_STAGE_CONFIGURATION_PARAMETER: undefined, GATEWAY_CHAIN_ENDPOINTS_PARAMETER: undefined }).stageConfiguration;
    expect(local.kind).toBe('environment');
  });
});

describe('a function keeping the stage configuration', () => {
  const source: StageConfigurationSource = { kind: 'parameters', parameterNames: { configuration: CONFIGURATION }, base: base() };

  /** A function's configuration over the SSM stand-in, on a clock the test moves. */
  async function load(values: Record<string, string> = { [CONFIGURATION]: document() }) {
    const ssm = fakeSsm(values);
    let clock = 1_000_000;
    const kept: unknown[] = [];
    const live = await loadStageConfiguration(source, () => ssmParametersReader(ssm.client), { now: () => clock, onKeptAfterFailure: (error) => kept.push(error) });
    return { live, ssm, kept, advance: (ms: number) => (clock += ms) };
  }

  it('reads it once when the container loads, and answers the same object until it changes', async () => {
    const { live, ssm, advance } = await load();
    expect(ssm.state.requests).toEqual([[CONFIGURATION]]);
    const first = live.current();
    expect(first.providers.map(({ id }) => id)).toEqual(['psp-one']);
    advance(STORED_VALUE_MAX_AGE_MS - 1);
    expect(live.current()).toBe(first);
    expect(ssm.state.requests).toHaveLength(1);
    // Read again once older than the maximum age; an unchanged document keeps the object.
    advance(1);
    expect(live.current()).toBe(first);
    await settled();
    expect(ssm.state.requests).toHaveLength(2);
    expect(live.current()).toBe(first);
  });

  it('takes a changed document within the maximum age: the read starts at a use, and a later use has it', async () => {
    const { live, ssm, advance } = await load();
    ssm.state.values[CONFIGURATION] = document({ providers: [PSP_ONE, { ...PSP_ONE, id: 'psp-two' }] });
    advance(STORED_VALUE_MAX_AGE_MS);
    expect(live.current().providers).toHaveLength(1);
    await settled();
    expect(live.current().providers.map(({ id }) => id)).toEqual(['psp-one', 'psp-two']);
  });

  it('keeps the last one when a read fails or finds a document it refuses, says so, and reads again at the next use', async () => {
    const { live, ssm, kept, advance } = await load();
    const first = live.current();
    ssm.state.failing = true;
    advance(STORED_VALUE_MAX_AGE_MS);
    expect(live.current()).toBe(first);
    await settled();
    expect(live.current()).toBe(first);
    await settled();
    expect(kept).toEqual([expect.objectContaining({ message: 'Rate exceeded' }), expect.objectContaining({ message: 'Rate exceeded' })]);
    ssm.state.failing = false;
    ssm.state.values[CONFIGURATION] = document({ providers: [PSP_ONE, PSP_ONE] });
    live.current();
    await settled();
    expect(live.current()).toBe(first);
    expect(String(kept.at(-1))).toContain('provider ids must be unique');
  });

  it('fails the cold start when the first read fails, naming what is missing or wrong', async () => {
    await expect(load({})).rejects.toThrow(`Stage configuration parameters not found: ${CONFIGURATION}`);
    await expect(load({ [CONFIGURATION]: '[]' })).rejects.toThrow('Invalid stage configuration: configuration');
  });

  it("starts without the networks' endpoints while they do not exist yet (the jobs stack is deployed after the API's): no network has a node", async () => {
    const ssm = fakeSsm({ [CONFIGURATION]: document() });
    const withEndpoints = { kind: 'parameters' as const, parameterNames: { configuration: CONFIGURATION, chainEndpoints: CHAIN_ENDPOINTS }, base: base() };
    const live = await loadStageConfiguration(withEndpoints, () => ssmParametersReader(ssm.client));
    expect(ssm.state.requests).toEqual([[CONFIGURATION, CHAIN_ENDPOINTS]]);
    expect(live.current().chains.ethereum.rpcUrl).toBeUndefined();
  });

  it('is the environment itself on one machine, read from nowhere', async () => {
    const configuration = base();
    const live = await loadStageConfiguration({ kind: 'environment', configuration }, () => {
      throw new Error('SSM is not read on one machine');
    });
    expect(live.current()).toBe(configuration);
  });
});
