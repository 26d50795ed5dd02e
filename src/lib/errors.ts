// One table maps every reason the interface uses to its HTTP status (spec/compat.md).
export const REASON_STATUS = {
  // budgets, policies, quotas, teams (Gantry decision)
  INVALID_ARGUMENT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BUDGET_EXCEEDED: 403,
  CONFLICT: 409,
  // LLM family
  INVALID_API_KEY: 401,
  MODEL_NOT_FOUND: 404,
  NOT_ENOUGH_BALANCE: 403,
  INVALID_REQUEST_BODY: 400,
  RATE_LIMIT_EXCEEDED: 429,
  TOKEN_LIMIT_EXCEEDED: 429,
  SERVICE_NOT_AVAILABLE: 503,
  ACCESS_DENY: 403,
  // Gantry decision (docs/compat-decisions.md): a file of no team of the key
  FILE_NOT_FOUND: 404,
  // Gantry decision: a stored response (Responses API) of no team of the key, or not stored
  RESPONSE_NOT_FOUND: 404,
  // Gantry decision (docs/compat-decisions.md): a batch of no team of the key
  BATCH_NOT_FOUND: 404,
  // Gantry decision (docs/compat-decisions.md): a team's stored files or media models would pass the quota the operator set
  STORAGE_QUOTA_EXCEEDED: 403,
  // media family
  MISSING_API_KEY: 400,
  API_NOT_FOUND: 404,
  BILLING_BALANCE_NOT_ENOUGH: 400,
  TASK_NOT_FOUND: 404,
  TASK_FAILED: 500,
  // GPU family: almost everything is 400
  VALIDATOR_PARAM: 400,
  RESOURCE_NOT_FOUND: 400,
  TEMPLATE_NOT_FOUND: 400,
  SERVERLESS_ENDPOINT_NOT_FOUND: 400,
  NETWORK_STORAGE_NOT_FOUND: 400,
  INSUFFICIENT_RESOURCE: 400,
  BALANCE_NOT_ENOUGH: 400,
  CREATE_INSTANCE_LIMIT: 400,
  SERVERLESS_APP_NAME_IS_EXIST: 400,
  INVALID_STATE: 400,
  // billing family
  INVALID_PRODUCT_CATEGORY: 400,
  INVALID_BILL_CYCLE: 400,
  LIST_BILL_TOO_FAST: 429,
  LIST_BILL_ERROR: 500,
  // any family: the transport's own refusals, a dependency down, an internal error
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  // a proxy's upstream did not answer in time (serverless endpoints)
  GATEWAY_TIMEOUT: 504,
  UNKNOWN: 500,
} as const;

export type Reason = keyof typeof REASON_STATUS;
export type ErrorMetadata = Record<string, string | number | boolean | null>;

export class AppError extends Error {
  readonly reason: Reason;
  readonly status: number;
  readonly metadata: ErrorMetadata;
  readonly headers: Record<string, string> | undefined;
  constructor(reason: Reason, message: string, metadata: ErrorMetadata = {}, headers?: Record<string, string>) {
    super(message);
    this.reason = reason;
    this.status = REASON_STATUS[reason];
    this.metadata = metadata;
    this.headers = headers;
  }

  /** The same failure told with another reason (a route family's own word for it). */
  as(reason: Reason): AppError {
    return reason === this.reason ? this : new AppError(reason, this.message, this.metadata, this.headers);
  }
}

export interface ErrorBody {
  code: number;
  reason: string;
  message: string;
  metadata: ErrorMetadata;
}

export function errorBody(e: AppError): ErrorBody {
  return { code: e.status, reason: e.reason, message: e.message, metadata: e.metadata };
}

/** Shorthand for the most common failure: a field broke a rule. */
export function invalid(field: string, rule: string, reason: Reason = 'INVALID_ARGUMENT'): AppError {
  return new AppError(reason, `${field}: ${rule}`, { field, rule });
}

export function notFound(what: string, id: string, reason: Reason = 'NOT_FOUND'): AppError {
  return new AppError(reason, `${what} ${id} not found`, { resource: what, id });
}
