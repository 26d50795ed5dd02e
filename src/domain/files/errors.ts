// The reasons the Files API refuses with (the model family's words, compat.md): a bad upload
// (INVALID_REQUEST_BODY, naming the field or the file's broken rule), a file of no team of
// the key (FILE_NOT_FOUND), an upload that outlived its deadline (SERVICE_NOT_AVAILABLE).
import { AppError, invalid, notFound, type Reason } from '../../lib/errors.ts';

export const FILES_REASONS = ['INVALID_REQUEST_BODY', 'FILE_NOT_FOUND', 'SERVICE_NOT_AVAILABLE'] as const satisfies readonly Reason[];

/** A field of the upload broke a rule. */
export const bad = (field: string, rule: string): AppError => invalid(field, rule, 'INVALID_REQUEST_BODY');

/** The file's content broke `rule` (jsonl.ts): the message says where. */
export function badFile(rule: string, message: string, meta: Record<string, number> = {}): AppError {
  return new AppError('INVALID_REQUEST_BODY', `file: ${message}`, { field: 'file', rule, ...meta });
}

/** A file of the caller's team that does not exist (or no longer); another team's reads the same. */
export const fileNotFound = (id: string): AppError => notFound('file', id, 'FILE_NOT_FOUND');

/** The upload's bytes came in after its deadline: it was discarded. */
export function uploadTooSlow(): AppError {
  return new AppError('SERVICE_NOT_AVAILABLE', 'the upload took longer than its deadline and was discarded; upload again');
}
