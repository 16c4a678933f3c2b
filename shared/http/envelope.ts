/** The two response envelopes of the merchant contract, as API Gateway proxy results. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiError, ErrorItem } from '../errors.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export type Headers = Record<string, string>;

export function successResponse(data: unknown, status = 200, headers: Headers = {}): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: JSON.stringify({ success: true, data }),
  };
}

export function errorResponse(status: number, errors: ErrorItem[], headers: Headers = {}): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
    body: JSON.stringify({ success: false, errors }),
  };
}

export function apiErrorResponse(error: ApiError, headers: Headers = {}): APIGatewayProxyResult {
  return errorResponse(error.status, error.items, headers);
}

/** A 500 tells the caller nothing but the request id to quote to support. */
export function internalErrorResponse(requestId: string, headers: Headers = {}): APIGatewayProxyResult {
  return errorResponse(500, [{ code: 'internal_server_error', message: `Internal server error (request id ${requestId})` }], headers);
}
