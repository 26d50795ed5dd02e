// Shapes of the Batches API in its two renderings (domain/batches/view.ts): the batch object
// of interface.md ("Batch job", with the endpoint and status enums of its states table) on
// the interface's bases, OpenAI's Batch object on /v1.
import { Type, type TSchema } from 'typebox';
import { BATCH_ENDPOINTS, BATCH_STATUSES, BATCH_VIEWS, OPENAI_BATCH_STATUSES, type Batch } from '../../../domain/batches/view.ts';
import type { BatchList } from '../../../domain/batches/service.ts';
import type { Rendering } from '../openai/bases.ts';

const Seconds = Type.Union([Type.String({ description: 'Unix seconds' }), Type.Null()]);
const NumericSeconds = Type.Union([Type.Integer({ description: 'Unix seconds' }), Type.Null()]);
const RequestCounts = Type.Object({ total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() });
const Metadata = Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]);
const Endpoint = Type.String({ enum: [...BATCH_ENDPOINTS] });

export const BatchObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('batch'),
  endpoint: Endpoint,
  errors: Type.String({ description: "why validation failed: each bad line's message (at most 100), one a line; empty when none" }),
  input_file_id: Type.String(),
  completion_window: Type.String(),
  status: Type.String({ enum: [...BATCH_STATUSES] }),
  output_file_id: Type.String({ description: 'empty until completed' }),
  error_file_id: Type.String({ description: 'empty unless some line failed' }),
  created_at: Type.String({ description: 'Unix seconds' }),
  in_progress_at: Seconds, expires_at: Seconds, finalizing_at: Seconds, completed_at: Seconds, failed_at: Seconds,
  expired_at: Seconds, cancelling_at: Seconds, cancelled_at: Seconds, updated_at: Seconds,
  request_counts: RequestCounts,
  total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer(),
  metadata: Metadata,
  version: Type.Integer({ description: 'bumped on every change of status' }),
  created_by: Type.String({ description: 'the member who created it' }),
  created_by_key_id: Type.String({ description: 'the API key that created it; its lines are billed to it' }),
  remark: Type.String(),
});

const Tokens = Type.Integer({ minimum: 0 });

/** OpenAI's Batch object (the openai package's `Batch`). */
export const OpenAIBatchObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('batch'),
  endpoint: Endpoint,
  model: Type.Union([Type.String(), Type.Null()], { description: "the lines' model, once validated" }),
  errors: Type.Union([Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(Type.Object({
      code: Type.String(), message: Type.String(), param: Type.Union([Type.String(), Type.Null()]), line: Type.Union([Type.Integer(), Type.Null()]),
    })),
  }), Type.Null()], { description: 'why validation failed: one entry per bad line (at most 100)' }),
  input_file_id: Type.String(),
  completion_window: Type.String(),
  status: Type.String({ enum: [...OPENAI_BATCH_STATUSES] }),
  output_file_id: Type.Union([Type.String(), Type.Null()], { description: 'null until written' }),
  error_file_id: Type.Union([Type.String(), Type.Null()], { description: 'null unless some line failed' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  in_progress_at: NumericSeconds, expires_at: NumericSeconds, finalizing_at: NumericSeconds, completed_at: NumericSeconds,
  failed_at: NumericSeconds, expired_at: NumericSeconds, cancelling_at: NumericSeconds, cancelled_at: NumericSeconds,
  request_counts: RequestCounts,
  metadata: Metadata,
  usage: Type.Object({
    input_tokens: Tokens, input_tokens_details: Type.Object({ cached_tokens: Tokens }),
    output_tokens: Tokens, output_tokens_details: Type.Object({ reasoning_tokens: Tokens }),
    total_tokens: Tokens,
  }, { description: 'the tokens of the lines answered so far' }),
});

const listOf = (item: TSchema) => Type.Object({
  object: Type.Literal('list'), data: Type.Array(item),
  first_id: Type.Union([Type.String(), Type.Null()]), last_id: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean(),
});

/** The batch object and the list of batches, per rendering. */
const BATCH_SHAPES: Record<Rendering, { batch: TSchema; list: TSchema }> = {
  interface: { batch: BatchObject, list: listOf(BatchObject) },
  openai: { batch: OpenAIBatchObject, list: listOf(OpenAIBatchObject) },
};

/** A batch, and a page of them, as a base's rendering shows them, with the schemas of both. */
export function renderer(rendering: Rendering) {
  const view: (b: Batch) => unknown = BATCH_VIEWS[rendering];
  return { shapes: BATCH_SHAPES[rendering], batch: view, list: (page: BatchList): BatchList<unknown> => ({ ...page, data: page.data.map(view) }) };
}

/** Ids are `<prefix>_<base32>`: anything else names nothing (and never reaches the store, which keeps no NUL). */
export const Id = (description?: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', ...(description ? { description } : {}) });

export const BatchIdParams = Type.Object({ batch_id: Id() });
