/**
 * A function's whole environment as the local stack gives it, pointed at stores, queues and a
 * provider that nowhere listen: for tests of how the configuration is read, which start nothing
 * (the unit tier has no global setup, so no `gatewayEnv` to inject).
 */
import { DEFAULT_FUNCTION_SETTINGS, handlerEnvironment, localTableNames, randomLocalCredentials } from '../../infra/local/environment.js';
import { localQueueEnvironment } from '../../infra/local/sqs.js';

/** Port 9 (discard) on the loopback: nothing answers there, and nothing here asks. */
const NOWHERE = 'http://127.0.0.1:9';

export function offlineFunctionEnvironment(): Record<string, string> {
  return handlerEnvironment(
    {
      publicBaseUrl: 'http://localhost:3999',
      dynamodbEndpoint: NOWHERE,
      dynamodbCredentials: randomLocalCredentials(),
      sqsEndpoint: NOWHERE,
      queueEnvironment: localQueueEnvironment(NOWHERE),
      dataDir: '/nonexistent/gateway-unit',
      tables: localTableNames(),
    },
    DEFAULT_FUNCTION_SETTINGS,
  );
}
