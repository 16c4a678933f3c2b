import { CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, GetApiKeysCommand, type APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { stackOutputs } from '../../infra/cli/targets.js';
import { parseConfig } from '../../shared/config.js';
import { newApiKey } from '../../shared/domain/merchants/merchants.js';
import { ApiGatewayKeyRegistry, configuredKeyRegistry, localKeyRegistry, usagePlanIdParameter } from '../../shared/store/api-gateway-keys.js';
import { offlineFunctionEnvironment } from '../support/function-environment.js';

type Command = { constructor: { name: string }; input: Record<string, unknown> };

/** An SDK client that records commands and answers from `reply`. */
function stubClient<Client extends { send: unknown }>(reply: (command: Command) => unknown = () => ({})) {
  const sent: Array<{ command: string; input: Record<string, unknown> }> = [];
  const client = {
    send: async (command: Command) => {
      sent.push({ command: command.constructor.name, input: command.input });
      const answer = reply(command);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { client: client as unknown as Pick<Client, 'send'>, sent };
}

const key = newApiKey('9b2c7e1a-4f57-4b43-9a52-0f8f3a6d2c11', 'prod', new Date('2025-01-01T00:00:00Z')).record;

describe('ApiGatewayKeyRegistry', () => {
  it('creates an API key whose value is the digest, never the key text, and adds it to the usage plan', async () => {
    const { client, sent } = stubClient<APIGatewayClient>((command) => (command instanceof CreateApiKeyCommand ? { id: 'agw-key-1' } : {}));
    await new ApiGatewayKeyRegistry(client, 'plan-7').register(key);
    expect(sent).toEqual([
      {
        command: CreateApiKeyCommand.name,
        // No tags: tagging on create takes a grant of its own, which the functions that issue keys do not have.
        input: { name: `merchant-key-${key.keyId}`, description: `Key ${key.hint} of merchant ${key.merchantId}`, value: key.digest, enabled: true, customerId: key.merchantId },
      },
      { command: CreateUsagePlanKeyCommand.name, input: { usagePlanId: 'plan-7', keyId: 'agw-key-1', keyType: 'API_KEY' } },
    ]);
  });

  it('deletes the API key again when the usage plan refuses it', async () => {
    const { client, sent } = stubClient<APIGatewayClient>((command) =>
      command instanceof CreateApiKeyCommand ? { id: 'agw-key-2' } : command instanceof CreateUsagePlanKeyCommand ? new Error('NotFoundException') : {},
    );
    await expect(new ApiGatewayKeyRegistry(client, 'plan-7').register(key)).rejects.toThrow('NotFoundException');
    expect(sent.at(-1)).toEqual({ command: DeleteApiKeyCommand.name, input: { apiKey: 'agw-key-2' } });
  });

  it('deletes only the API key of that merchant key on unregister', async () => {
    const { client, sent } = stubClient<APIGatewayClient>((command) =>
      command instanceof GetApiKeysCommand
        ? {
            items: [
              { id: 'a', name: `merchant-key-${key.keyId}` },
              { id: 'b', name: `merchant-key-${key.keyId}-other` },
            ],
          }
        : {},
    );
    await new ApiGatewayKeyRegistry(client, 'plan-7').unregister(key);
    expect(sent).toEqual([
      { command: GetApiKeysCommand.name, input: { nameQuery: `merchant-key-${key.keyId}`, includeValues: false } },
      { command: DeleteApiKeyCommand.name, input: { apiKey: 'a' } },
    ]);
  });
});

describe("the usage plan's id in a function", () => {
  const PARAMETER = '/payment-gateway/prod/usage-plan-id';
  /** An SSM stand-in holding the plan's id; `failures` calls fail first, as a throttled SSM would. */
  const ssmWith = (failures = 0) => {
    let left = failures;
    return stubClient<SSMClient>((command) => (command instanceof GetParameterCommand && left-- <= 0 ? { Parameter: { Name: PARAMETER, Value: 'plan-9' } } : new Error('ThrottlingException')));
  };

  it('is read from its parameter when the first key is registered, once per container', async () => {
    const ssm = ssmWith();
    const apiGateway = stubClient<APIGatewayClient>((command) => (command instanceof CreateApiKeyCommand ? { id: 'agw-key-3' } : {}));
    const registry = configuredKeyRegistry({ kind: 'usagePlan', usagePlanParameter: PARAMETER }, { apiGateway: () => apiGateway.client, ssm: () => ssm.client });
    expect(ssm.sent).toEqual([]);
    await registry.register(key);
    await registry.register(key);
    expect(ssm.sent).toEqual([{ command: GetParameterCommand.name, input: { Name: PARAMETER } }]);
    expect(apiGateway.sent.filter(({ command }) => command === CreateUsagePlanKeyCommand.name).map(({ input }) => input.usagePlanId)).toEqual(['plan-9', 'plan-9']);
  });

  it('is read again after a failed read, which is not kept', async () => {
    const ssm = ssmWith(1);
    const read = usagePlanIdParameter(ssm.client, PARAMETER);
    await expect(read()).rejects.toThrow('ThrottlingException');
    expect(await read()).toBe('plan-9');
    expect(await read()).toBe('plan-9');
    expect(ssm.sent).toHaveLength(2);
  });

  it('comes from the configuration: the parameter in AWS, none on one machine, and a function without either cannot register keys', () => {
    const { API_KEY_USAGE_PLAN_PARAMETER: _parameter, GATEWAY_API_KEY_REGISTRY: _local, ...bare } = offlineFunctionEnvironment();
    expect(parseConfig({ ...bare, API_KEY_USAGE_PLAN_PARAMETER: PARAMETER }).apiKeyRegistry).toEqual({ kind: 'usagePlan', usagePlanParameter: PARAMETER });
    expect(parseConfig({ ...bare, GATEWAY_API_KEY_REGISTRY: 'local' }).apiKeyRegistry).toEqual({ kind: 'local' });
    expect(() => parseConfig({ ...bare, GATEWAY_API_KEY_REGISTRY: 'aws' })).toThrow(/Invalid environment: GATEWAY_API_KEY_REGISTRY/);
    const unconfigured = parseConfig(bare).apiKeyRegistry;
    expect(unconfigured).toBeUndefined();
    const clients = { apiGateway: () => stubClient<APIGatewayClient>().client, ssm: () => ssmWith().client };
    expect(configuredKeyRegistry({ kind: 'local' }, clients)).toBe(localKeyRegistry);
    expect(() => configuredKeyRegistry(unconfigured, clients)).toThrow('Invalid environment: API_KEY_USAGE_PLAN_PARAMETER (AWS) or GATEWAY_API_KEY_REGISTRY=local (one machine) is required');
  });
});

describe('stackOutputs', () => {
  it('reads the outputs of every stack of the stage, PaymentGateway-{stage}-{data,api,jobs,monitoring}, together', async () => {
    const outputs: Record<string, Array<{ OutputKey: string; OutputValue: string }>> = {
      'PaymentGateway-demo-data': [{ OutputKey: 'TableMerchants', OutputValue: 'm' }],
      'PaymentGateway-demo-api': [{ OutputKey: 'UsagePlanId', OutputValue: 'p' }],
    };
    const { client, sent } = stubClient<CloudFormationClient>((command) => ({ Stacks: [{ Outputs: outputs[(command.input as { StackName: string }).StackName] ?? [] }] }));
    expect(await stackOutputs(client, 'demo')).toEqual({ TableMerchants: 'm', UsagePlanId: 'p' });
    expect(sent.map(({ input }) => input)).toEqual(['data', 'api', 'jobs', 'monitoring'].map((concern) => ({ StackName: `PaymentGateway-demo-${concern}` })));
    expect(sent.every(({ command }) => command === DescribeStacksCommand.name)).toBe(true);
  });

  it('names the stack it could not read', async () => {
    const { client } = stubClient<CloudFormationClient>(() => new Error('Stack with id PaymentGateway-prod-data does not exist'));
    await expect(stackOutputs(client, 'prod')).rejects.toThrow('Could not read the stack PaymentGateway-prod-data: Stack with id');
  });
});
