// The batch object of interface.md ("Batch job"), from its row. Timestamps are Unix seconds
// as strings (interface.md types them string; compat.md: management timestamps are strings),
// null until the event happens; `output_file_id` and `error_file_id` are "" until written.
import type { BatchRow } from '../../store/batches.ts';

export const BATCH_STATUSES = ['VALIDATING', 'PROGRESS', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLING', 'CANCELLED'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/completions'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

export interface BatchErrors {
  object: 'list';
  data: { code: string; message: string; param: string | null; line: number | null }[];
}

export interface BatchObject {
  id: string;
  object: 'batch';
  endpoint: string;
  errors: BatchErrors | null;
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

const s = (ms: number | null): string | null => (ms === null ? null : String(Math.floor(ms / 1000)));

export function batchView(r: BatchRow): BatchObject {
  return {
    id: r.id, object: 'batch', endpoint: r.endpoint, errors: (r.errors as BatchErrors | null) ?? null,
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
