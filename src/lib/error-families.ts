// Route families (spec/compat.md): each route declares one, and may answer only with the
// reasons of its family. Domain code throws the reason that says what happened; the answer
// (error-answer.ts) translates a reason foreign to the route's family into the family's own
// reason of the same kind (a NOT_FOUND under /gpu-instance is RESOURCE_NOT_FOUND, 400).
// Framework-free: the HTTP error handler and the batch runner tell failures alike.
import { REASON_STATUS, type Reason } from './errors.ts';

export const FAMILIES = ['llm', 'anthropic', 'gpu', 'media', 'billing', 'account', 'operator', 'serverless'] as const;
export type Family = (typeof FAMILIES)[number];

/**
 * Reasons any route may answer with: the transport's own refusals (size limits, media
 * types, methods), a dependency that is down, and an internal error.
 */
export const COMMON_REASONS = [
  'PAYLOAD_TOO_LARGE', 'URI_TOO_LONG', 'UNSUPPORTED_MEDIA_TYPE', 'HEADERS_TOO_LARGE', 'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT', 'GATEWAY_TIMEOUT', 'SERVICE_NOT_AVAILABLE', 'UNKNOWN',
] as const satisfies readonly Reason[];

/** What a reason means, so another family's reason of the same kind can stand in for it. */
const KIND_OF = {
  INVALID_ARGUMENT: 'invalid', VALIDATOR_PARAM: 'invalid', INVALID_REQUEST_BODY: 'invalid', INVALID_STATE: 'invalid',
  INVALID_BILL_CYCLE: 'invalid', INVALID_PRODUCT_CATEGORY: 'invalid',
  UNAUTHORIZED: 'unauthorized', INVALID_API_KEY: 'unauthorized', MISSING_API_KEY: 'unauthorized',
  FORBIDDEN: 'forbidden', ACCESS_DENY: 'forbidden',
  NOT_FOUND: 'notFound', RESOURCE_NOT_FOUND: 'notFound', MODEL_NOT_FOUND: 'notFound', API_NOT_FOUND: 'notFound',
  TASK_NOT_FOUND: 'notFound', TEMPLATE_NOT_FOUND: 'notFound', NETWORK_STORAGE_NOT_FOUND: 'notFound',
  SERVERLESS_ENDPOINT_NOT_FOUND: 'notFound', FILE_NOT_FOUND: 'notFound', RESPONSE_NOT_FOUND: 'notFound', BATCH_NOT_FOUND: 'notFound',
  CONFLICT: 'conflict', SERVERLESS_APP_NAME_IS_EXIST: 'conflict',
  NOT_ENOUGH_BALANCE: 'balance', BALANCE_NOT_ENOUGH: 'balance', BILLING_BALANCE_NOT_ENOUGH: 'balance',
  // a limit the operator set for the team, like a budget: another family tells it as its budget reason
  BUDGET_EXCEEDED: 'budget', STORAGE_QUOTA_EXCEEDED: 'budget',
  RATE_LIMIT_EXCEEDED: 'rate', TOKEN_LIMIT_EXCEEDED: 'rate', LIST_BILL_TOO_FAST: 'rate',
  INSUFFICIENT_RESOURCE: 'capacity', CREATE_INSTANCE_LIMIT: 'capacity',
  TASK_FAILED: 'failure', LIST_BILL_ERROR: 'failure',
  PAYLOAD_TOO_LARGE: 'common', URI_TOO_LONG: 'common', UNSUPPORTED_MEDIA_TYPE: 'common', HEADERS_TOO_LARGE: 'common',
  METHOD_NOT_ALLOWED: 'common', REQUEST_TIMEOUT: 'common', GATEWAY_TIMEOUT: 'common', SERVICE_NOT_AVAILABLE: 'common', UNKNOWN: 'common',
} as const satisfies Record<Reason, string>;
type Kind = Exclude<(typeof KIND_OF)[Reason], 'common'>;

interface FamilyTable {
  /** the family's reasons, as compat.md lists them (plus the decisions noted there) */
  reasons: readonly Reason[];
  /** the family's reason for each kind of failure */
  stand: Record<Kind, Reason>;
}

// API_NOT_FOUND (404, the media family's): a path no route serves (http/plugins/errors.ts);
// without it an unknown path was told as MODEL_NOT_FOUND, the family's not-found.
const LLM: FamilyTable = {
  reasons: ['INVALID_API_KEY', 'MODEL_NOT_FOUND', 'NOT_ENOUGH_BALANCE', 'INVALID_REQUEST_BODY', 'RATE_LIMIT_EXCEEDED',
    'TOKEN_LIMIT_EXCEEDED', 'SERVICE_NOT_AVAILABLE', 'ACCESS_DENY', 'BUDGET_EXCEEDED', 'FILE_NOT_FOUND', 'RESPONSE_NOT_FOUND', 'BATCH_NOT_FOUND',
    'STORAGE_QUOTA_EXCEEDED', 'API_NOT_FOUND'],
  stand: {
    invalid: 'INVALID_REQUEST_BODY', unauthorized: 'INVALID_API_KEY', forbidden: 'ACCESS_DENY', notFound: 'MODEL_NOT_FOUND',
    conflict: 'INVALID_REQUEST_BODY', balance: 'NOT_ENOUGH_BALANCE', budget: 'BUDGET_EXCEEDED', rate: 'RATE_LIMIT_EXCEEDED',
    capacity: 'SERVICE_NOT_AVAILABLE', failure: 'SERVICE_NOT_AVAILABLE',
  },
};

export const FAMILY_TABLE: Record<Family, FamilyTable> = {
  llm: LLM,
  // The Anthropic-compatible door (/anthropic): the model family's reasons and statuses; only
  // the body adds Anthropic's members (error-answer.ts errorPayload).
  anthropic: LLM,
  gpu: {
    reasons: ['VALIDATOR_PARAM', 'RESOURCE_NOT_FOUND', 'TEMPLATE_NOT_FOUND', 'SERVERLESS_ENDPOINT_NOT_FOUND',
      'NETWORK_STORAGE_NOT_FOUND', 'INSUFFICIENT_RESOURCE', 'BALANCE_NOT_ENOUGH', 'CREATE_INSTANCE_LIMIT',
      'SERVERLESS_APP_NAME_IS_EXIST', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED', 'UNKNOWN', 'BUDGET_EXCEEDED'],
    stand: {
      invalid: 'VALIDATOR_PARAM', unauthorized: 'UNAUTHORIZED', forbidden: 'FORBIDDEN', notFound: 'RESOURCE_NOT_FOUND',
      conflict: 'VALIDATOR_PARAM', balance: 'BALANCE_NOT_ENOUGH', budget: 'BUDGET_EXCEEDED', rate: 'RATE_LIMIT_EXCEEDED',
      capacity: 'INSUFFICIENT_RESOURCE', failure: 'UNKNOWN',
    },
  },
  media: {
    // FORBIDDEN (403): a key whose role may not use media (Gantry's decision, docs/compat-decisions.md)
    reasons: ['INVALID_REQUEST_BODY', 'MISSING_API_KEY', 'INVALID_API_KEY', 'API_NOT_FOUND', 'RATE_LIMIT_EXCEEDED',
      'BILLING_BALANCE_NOT_ENOUGH', 'TASK_NOT_FOUND', 'TASK_FAILED', 'BUDGET_EXCEEDED', 'FORBIDDEN', 'STORAGE_QUOTA_EXCEEDED'],
    stand: {
      invalid: 'INVALID_REQUEST_BODY', unauthorized: 'INVALID_API_KEY', forbidden: 'FORBIDDEN', notFound: 'API_NOT_FOUND',
      conflict: 'INVALID_REQUEST_BODY', balance: 'BILLING_BALANCE_NOT_ENOUGH', budget: 'BUDGET_EXCEEDED',
      rate: 'RATE_LIMIT_EXCEEDED', capacity: 'TASK_FAILED', failure: 'TASK_FAILED',
    },
  },
  billing: {
    reasons: ['INVALID_PRODUCT_CATEGORY', 'INVALID_BILL_CYCLE', 'LIST_BILL_TOO_FAST', 'LIST_BILL_ERROR', 'UNAUTHORIZED', 'FORBIDDEN'],
    stand: {
      // A bill query's only inputs are its period and its product filter: anything else
      // wrong with it is a wrong period (see productField below for the product filter).
      invalid: 'INVALID_BILL_CYCLE', unauthorized: 'UNAUTHORIZED', forbidden: 'FORBIDDEN', notFound: 'INVALID_BILL_CYCLE',
      conflict: 'INVALID_BILL_CYCLE', balance: 'FORBIDDEN', budget: 'FORBIDDEN', rate: 'LIST_BILL_TOO_FAST',
      capacity: 'LIST_BILL_ERROR', failure: 'LIST_BILL_ERROR',
    },
  },
  // budgets, policies, quotas, teams and system routes (compat.md's decision)
  // RATE_LIMIT_EXCEEDED (429): too many failed authentications (domain/auth-throttle.ts)
  account: {
    reasons: ['INVALID_ARGUMENT', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'BUDGET_EXCEEDED', 'CONFLICT', 'RATE_LIMIT_EXCEEDED'],
    stand: {
      invalid: 'INVALID_ARGUMENT', unauthorized: 'UNAUTHORIZED', forbidden: 'FORBIDDEN', notFound: 'NOT_FOUND',
      conflict: 'CONFLICT', balance: 'FORBIDDEN', budget: 'BUDGET_EXCEEDED', rate: 'RATE_LIMIT_EXCEEDED', capacity: 'CONFLICT',
      failure: 'UNKNOWN',
    },
  },
  // The URL of a serverless endpoint (a proxy to its workers; Gantry's decision, see
  // docs/compat-decisions.md): an HTTP client's statuses, 404 for an endpoint of no team of the key.
  serverless: {
    reasons: ['INVALID_API_KEY', 'NOT_FOUND', 'RATE_LIMIT_EXCEEDED', 'INVALID_REQUEST_BODY', 'FORBIDDEN'],
    stand: {
      invalid: 'INVALID_REQUEST_BODY', unauthorized: 'INVALID_API_KEY', forbidden: 'FORBIDDEN', notFound: 'NOT_FOUND',
      conflict: 'INVALID_REQUEST_BODY', balance: 'SERVICE_NOT_AVAILABLE', budget: 'SERVICE_NOT_AVAILABLE', rate: 'RATE_LIMIT_EXCEEDED',
      capacity: 'SERVICE_NOT_AVAILABLE', failure: 'SERVICE_NOT_AVAILABLE',
    },
  },
  // Gantry's own operator API: the account family plus what operating compute can refuse
  // (RATE_LIMIT_EXCEEDED: too many failed operator tokens from an address)
  operator: {
    reasons: ['INVALID_ARGUMENT', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'INVALID_STATE', 'INSUFFICIENT_RESOURCE', 'RATE_LIMIT_EXCEEDED'],
    stand: {
      invalid: 'INVALID_ARGUMENT', unauthorized: 'UNAUTHORIZED', forbidden: 'FORBIDDEN', notFound: 'NOT_FOUND',
      conflict: 'CONFLICT', balance: 'CONFLICT', budget: 'CONFLICT', rate: 'RATE_LIMIT_EXCEEDED', capacity: 'INSUFFICIENT_RESOURCE',
      failure: 'UNKNOWN',
    },
  },
};

/** Bill filters on the product: a bad one is INVALID_PRODUCT_CATEGORY, not a bad period. */
const BILLING_PRODUCT_FIELDS = new Set(['productCategory', 'category', 'productName', 'productId', 'ownerId']);

export function mayAnswer(family: Family, reason: Reason): boolean {
  return (COMMON_REASONS as readonly Reason[]).includes(reason) || FAMILY_TABLE[family].reasons.includes(reason);
}

/** The reason a route of `family` answers with for a failure the domain called `reason`. */
export function reasonInFamily(family: Family, reason: Reason, field?: string): Reason {
  if (mayAnswer(family, reason)) return reason;
  const kind = KIND_OF[reason] as Kind;
  if (family === 'billing' && kind === 'invalid' && field && BILLING_PRODUCT_FIELDS.has(field)) return 'INVALID_PRODUCT_CATEGORY';
  return FAMILY_TABLE[family].stand[kind];
}

/** The family a path belongs to by its prefix, for answers no route gave (unknown paths). */
export function familyOfPath(url: string): Family {
  // /v1: the OpenAI-flavoured base of the same model routes (http/routes/openai/bases.ts)
  if (url.startsWith('/openai/') || url.startsWith('/v3/openai/') || url === '/openai' || url.startsWith('/v1/') || url === '/v1') return 'llm';
  if (url.startsWith('/anthropic/') || url === '/anthropic') return 'anthropic';
  if (url.startsWith('/gpu-instance/')) return 'gpu';
  if (url.startsWith('/openapi/v1/metrics/gpu/')) return 'gpu'; // the real service's instance metrics, outside /gpu-instance
  if (url.startsWith('/v3/')) return 'media';
  if (url.startsWith('/openapi/v1/billing/')) return 'billing';
  if (url.startsWith('/admin/')) return 'operator';
  // an instance's ports (gateway/ports): a tenant's HTTP server behind Gantry, as an endpoint's workers
  if (url.startsWith('/serverless/') || url === '/serverless' || url.startsWith('/ports/')) return 'serverless';
  return 'account';
}

/** Every reason has a status in the one table; a family is only a subset of it. */
export function statusOf(reason: Reason): number {
  return REASON_STATUS[reason];
}
