// A batch, rendered from its row in one of two shapes (one implementation, two renderings):
// - `batchView`: the batch job of interface.md, served on the interface's bases (/openai/v1
//   and its aliases) and in webhook events. Statuses upper-case; timestamps Unix seconds as
//   strings (interface.md types them string; compat.md: management timestamps are strings),
//   null until the event happens; `output_file_id` and `error_file_id` "" until written;
//   `errors` a string (interface.md: "Error messages"): the validation errors' messages, one
//   a line, "" when there are none.
// - `openaiBatchView`: OpenAI's Batch object (the openai package's `Batch`), served on the
//   OpenAI-flavoured base /v1: lower-case statuses, numeric timestamps, null file ids until
//   written, `errors` OpenAI's list object or null, `model`, `usage`.
import type { BatchRow } from '../../store/batches.ts';

export const BATCH_STATUSES = ['VALIDATING', 'PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLING', 'CANCELLED'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** OpenAI's statuses; `finalizing` is a batch in PROGRESS whose output files are being written. */
export const OPENAI_BATCH_STATUSES = ['validating', 'in_progress', 'finalizing', 'completed', 'failed', 'expired', 'cancelling', 'cancelled'] as const;
export type OpenAIBatchStatus = (typeof OPENAI_BATCH_STATUSES)[number];

export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/completions'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** A batch as the domain hands it to a rendering. */
export type Batch = BatchRow;

/** Why validation failed, one entry per bad line (as stored, and OpenAI's `errors`). */
export interface BatchErrors {
  object: 'list';
  data: { code: string; message: string; param: string | null; line: number | null }[];
}

export interface BatchObject {
  id: string;
  object: 'batch';
  endpoint: string;
  errors: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  output_file_id: string;
  error_file_id: string;
  created_at: string;
  in_progress_at: string | null;
  expires_at: string | null;
  finalizing_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  expired_at: string | null;
  cancelling_at: string | null;
  cancelled_at: string | null;
  updated_at: string | null;
  request_counts: { total: number; completed: number; failed: number };
  total: number;
  completed: number;
  failed: number;
  metadata: Record<string, string> | null;
  version: number;
  created_by: string;
  created_by_key_id: string;
  remark: string;
}

export interface OpenAIBatchObject {
  id: string;
  object: 'batch';
  endpoint: string;
  model: string | null;
  errors: BatchErrors | null;
  input_file_id: string;
  completion_window: string;
  status: OpenAIBatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  };
}

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));
const s = (ms: number | null): string | null => (ms === null ? null : String(seconds(ms)));
const errorsOf = (r: Batch) => (r.errors as BatchErrors | null) ?? null;

export function batchView(r: Batch): BatchObject {
  return {
    id: r.id, object: 'batch', endpoint: r.endpoint, errors: errorsOf(r)?.data.map((e) => e.message).join('\n') ?? '',
    input_file_id: r.inputFileId, completion_window: r.completionWindow, status: r.status,
    output_file_id: r.outputFileId, error_file_id: r.errorFileId,
    created_at: s(r.createdAtMs)!, in_progress_at: s(r.inProgressAtMs), expires_at: s(r.expiresAtMs), finalizing_at: s(r.finalizingAtMs),
    completed_at: s(r.completedAtMs), failed_at: s(r.failedAtMs), expired_at: s(r.expiredAtMs), cancelling_at: s(r.cancellingAtMs),
    cancelled_at: s(r.cancelledAtMs), updated_at: s(r.updatedAtMs),
    request_counts: { total: r.total, completed: r.completed, failed: r.failed },
    total: r.total, completed: r.completed, failed: r.failed,
    metadata: (r.metadata as Record<string, string> | null) ?? null,
    version: r.version, created_by: r.memberId, created_by_key_id: r.keyId, remark: '',
  };
}

const OPENAI_STATUS: Record<BatchStatus, OpenAIBatchStatus> = {
  VALIDATING: 'validating', PROGRESS: 'in_progress', COMPLETED: 'completed', FAILED: 'failed', EXPIRED: 'expired',
  CANCELLING: 'cancelling', CANCELLED: 'cancelled',
};

export function openaiBatchView(r: Batch): OpenAIBatchObject {
  const status = r.status === 'PROGRESS' && r.finalizingAtMs !== null ? 'finalizing' : OPENAI_STATUS[r.status as BatchStatus];
  return {
    id: r.id, object: 'batch', endpoint: r.endpoint, model: r.model, errors: errorsOf(r),
    input_file_id: r.inputFileId, completion_window: r.completionWindow, status,
    output_file_id: r.outputFileId || null, error_file_id: r.errorFileId || null,
    created_at: seconds(r.createdAtMs)!, in_progress_at: seconds(r.inProgressAtMs), expires_at: seconds(r.expiresAtMs),
    finalizing_at: seconds(r.finalizingAtMs), completed_at: seconds(r.completedAtMs), failed_at: seconds(r.failedAtMs),
    expired_at: seconds(r.expiredAtMs), cancelling_at: seconds(r.cancellingAtMs), cancelled_at: seconds(r.cancelledAtMs),
    request_counts: { total: r.total, completed: r.completed, failed: r.failed },
    metadata: (r.metadata as Record<string, string> | null) ?? null,
    usage: {
      input_tokens: r.inputTokens, input_tokens_details: { cached_tokens: r.cachedTokens },
      output_tokens: r.outputTokens, output_tokens_details: { reasoning_tokens: r.reasoningTokens },
      total_tokens: r.inputTokens + r.outputTokens,
    },
  };
}

/** The batch in each rendering: the interface's (its bases, webhooks) and OpenAI's (/v1). */
export const BATCH_VIEWS = { interface: batchView, openai: openaiBatchView } as const;
