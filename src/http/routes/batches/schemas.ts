// Shapes of the Batches API: the batch object of interface.md ("Batch job"), with the
// endpoint and status enums of its states table.
import { Type } from 'typebox';
import { BATCH_ENDPOINTS, BATCH_STATUSES } from '../../../domain/batches/view.ts';

const Seconds = Type.Union([Type.String({ description: 'Unix seconds' }), Type.Null()]);

export const BatchObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('batch'),
  endpoint: Type.String({ enum: [...BATCH_ENDPOINTS] }),
  errors: Type.Union([Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(Type.Object({
      code: Type.String(), message: Type.String(), param: Type.Union([Type.String(), Type.Null()]), line: Type.Union([Type.Integer(), Type.Null()]),
    })),
  }), Type.Null()], { description: 'why validation failed: one entry per bad line (at most 100)' }),
  input_file_id: Type.String(),
  completion_window: Type.String(),
  status: Type.String({ enum: [...BATCH_STATUSES] }),
  output_file_id: Type.String({ description: 'empty until completed' }),
  error_file_id: Type.String({ description: 'empty unless some line failed' }),
  created_at: Type.String({ description: 'Unix seconds' }),
  in_progress_at: Seconds, expires_at: Seconds, finalizing_at: Seconds, completed_at: Seconds, failed_at: Seconds,
  expired_at: Seconds, cancelling_at: Seconds, cancelled_at: Seconds, updated_at: Seconds,
  request_counts: Type.Object({ total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() }),
  total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer(),
  metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  version: Type.Integer({ description: 'bumped on every change of status' }),
  created_by: Type.String({ description: 'the member who created it' }),
  created_by_key_id: Type.String({ description: 'the API key that created it; its lines are billed to it' }),
  remark: Type.String(),
});

/** Ids are `<prefix>_<base32>`: anything else names nothing (and never reaches the store, which keeps no NUL). */
export const Id = (description?: string) => Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', ...(description ? { description } : {}) });

export const BatchIdParams = Type.Object({ batch_id: Id() });

export const summary = (base: string, what: string) => (base === '/openai/v1' ? what : `${what} (alias of /openai/v1)`);
