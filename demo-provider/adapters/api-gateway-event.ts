/** API Gateway's REST proxy events as the demo provider's requests, and its responses as proxy results. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { DemoRequest, DemoResponse } from '../core/http.js';

/** The request below `pathPrefix` (`/demo-provider/pay/x?lang=tr` -> `/pay/x?lang=tr`). */
export function requestOfEvent(event: APIGatewayProxyEvent, pathPrefix: string): DemoRequest {
  const path = event.path.startsWith(`${pathPrefix}/`) ? event.path.slice(pathPrefix.length) : event.path;
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) for (const value of values ?? []) query.append(name, value);
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) if (values) headers[name.toLowerCase()] = values.join(', ');
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] ??= value;
  const body = event.body ?? '';
  return {
    method: event.httpMethod,
    target: query.size > 0 ? `${path}?${query}` : path,
    headers,
    body: event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body,
  };
}

export const resultOfResponse = (response: DemoResponse): APIGatewayProxyResult => ({ statusCode: response.status, headers: response.headers, body: response.body });
