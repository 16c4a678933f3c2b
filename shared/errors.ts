/**
 * Error codes of the merchant contract and their HTTP statuses. A code is the snake_case reason
 * phrase of its status; the three database codes map onto 400 and 409.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  db_violation: 400,
  db_non_null_violation: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  proxy_authentication_required: 407,
  request_timeout: 408,
  conflict: 409,
  db_unique_violation: 409,
  gone: 410,
  length_required: 411,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  expectation_failed: 417,
  misdirected_request: 421,
  unprocessable_content: 422,
  locked: 423,
  failed_dependency: 424,
  upgrade_required: 426,
  precondition_required: 428,
  too_many_requests: 429,
  request_header_fields_too_large: 431,
  unavailable_for_legal_reasons: 451,
  internal_server_error: 500,
  not_implemented: 501,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
  http_version_not_supported: 505,
  variant_also_negotiates: 506,
  insufficient_storage: 507,
  loop_detected: 508,
  not_extended: 510,
  network_authentication_required: 511,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorItem {
  code: ErrorCode;
  message: string;
  /** Dotted path of the offending request field; present on 422 items. */
  field?: string;
}

export const UNAUTHORIZED_MESSAGE = 'You do not have permission to access this resource';

/** A failure that is the client's to see: it carries its code, and so its status. */
export class ApiError extends Error {
  readonly status: number;
  readonly items: ErrorItem[];

  constructor(code: ErrorCode, message: string, items?: ErrorItem[]) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    this.items = items ?? [{ code, message }];
  }

  get code(): ErrorCode {
    return this.items[0]!.code;
  }
}
