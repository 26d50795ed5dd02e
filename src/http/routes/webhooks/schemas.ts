import { Type } from 'typebox';
import { DELIVERY_STATES, ENDPOINT_STATES, MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, WEBHOOK_EVENTS } from '../../../domain/webhooks/codes.ts';
import { MAX_PAGE_NUM, MAX_PAGE_SIZE } from '../../../domain/compute/templates.ts';
import { Int32 } from '../../schemas.ts';

export const WEBHOOK_BASE = '/openapi/v1/webhook';
export const TAGS = ['webhooks'];

export const Secret = Type.Object({ secret: Type.String({ description: 'whsec_ and base64: the key of the Standard Webhooks signatures' }) });

const Url = Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'http or https, no credentials' });
const Events = Type.Array(Type.String({ enum: [...WEBHOOK_EVENTS] }), { minItems: 1, maxItems: WEBHOOK_EVENTS.length, description: 'at least one, each once' });
const Description = Type.String({ maxLength: MAX_DESCRIPTION_LENGTH });

export const EndpointCreate = Type.Object({ url: Url, events: Events, description: Type.Optional(Description) });
export const EndpointUpdate = Type.Object({
  url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean({ description: 'false disables the endpoint; true enables it again and forgets its failures' })),
});

const Seconds = Type.Integer({ description: 'Unix seconds' });
const SecondsOrNull = Type.Union([Seconds, Type.Null()]);

export const EndpointView = Type.Object({
  id: Type.String(), url: Type.String(), events: Type.Array(Type.String()), description: Type.String(),
  state: Type.String({ enum: [...ENDPOINT_STATES] }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'why it is disabled (by the team, or failing for 5 days)' }),
  disabled_at: SecondsOrNull,
  failing_since: Type.Union([Seconds, Type.Null()], { description: 'the first failed attempt since the last success' }),
  created_at: Seconds, updated_at: Seconds,
});

export const DeliveryView = Type.Object({
  id: Type.String({ description: 'msg_…: the webhook-id header' }), event: Type.String(),
  state: Type.String({ enum: [...DELIVERY_STATES] }),
  attempts: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: "the last attempt's HTTP status; null when no answer came" }),
  latency_ms: Type.Union([Type.Integer(), Type.Null()], { description: "the last attempt's time to an answer or a failure" }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt failed' }),
  last_attempt_at: SecondsOrNull,
  next_attempt_at: Type.Union([Seconds, Type.Null()], { description: 'when the next attempt is due; null once the delivery ended' }),
  created_at: Seconds,
  payload: Type.String({ description: 'the body sent, exactly as signed (JSON: {type, timestamp, data})' }),
});

export const EndpointParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveryParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), deliveryId: Type.String({ minLength: 1, maxLength: 64 }) });

export const Paging = Type.Object({
  pageSize: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_SIZE, description: 'missing or 0 reads as 10' })),
  pageNum: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_NUM, description: '1-based; missing or 0 reads as 1' })),
  pageNumber: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_NUM, description: 'alias of pageNum' })),
});
