import {
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  type APIGatewayClient,
} from '@aws-sdk/client-api-gateway';
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { ApiGatewayKeyRegistry } from '../../infra/cli/api-gateway-keys.js';
import { stackOutputs } from '../../infra/cli/targets.js';
import { newApiKey } from '../../shared/domain/merchants.js';

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
        input: expect.objectContaining({ name: `merchant-key-${key.keyId}`, value: key.digest, enabled: true, customerId: key.merchantId }),
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
        ? { items: [{ id: 'a', name: `merchant-key-${key.keyId}` }, { id: 'b', name: `merchant-key-${key.keyId}-other` }] }
        : {},
    );
    await new ApiGatewayKeyRegistry(client, 'plan-7').unregister(key);
    expect(sent).toEqual([
      { command: GetApiKeysCommand.name, input: { nameQuery: `merchant-key-${key.keyId}`, includeValues: false } },
      { command: DeleteApiKeyCommand.name, input: { apiKey: 'a' } },
    ]);
  });
});

describe('stackOutputs', () => {
  it('reads the outputs of PaymentGateway-{stage}', async () => {
    const { client, sent } = stubClient<CloudFormationClient>(() => ({
      Stacks: [{ Outputs: [{ OutputKey: 'TableMerchants', OutputValue: 'm' }, { OutputKey: 'UsagePlanId', OutputValue: 'p' }] }],
    }));
    expect(await stackOutputs(client, 'demo')).toEqual({ TableMerchants: 'm', UsagePlanId: 'p' });
    expect(sent).toEqual([{ command: DescribeStacksCommand.name, input: { StackName: 'PaymentGateway-demo' } }]);
  });

  it('names the stack it could not read', async () => {
    const { client } = stubClient<CloudFormationClient>(() => new Error('Stack with id PaymentGateway-prod does not exist'));
    await expect(stackOutputs(client, 'prod')).rejects.toThrow('Could not read the stack PaymentGateway-prod: Stack with id');
  });
});
