// The reasons a signed blob link is refused with: a link that is not valid or has expired
// (FORBIDDEN, its rule named), a blob that no longer exists (NOT_FOUND).
import { AppError, type Reason } from '../../lib/errors.ts';
import type { LinkCheck } from '../../store/blobs/index.ts';

export const BLOBS_REASONS = ['FORBIDDEN', 'NOT_FOUND'] as const satisfies readonly Reason[];

export function linkRefused(check: Exclude<LinkCheck, 'ok'>): AppError {
  return new AppError('FORBIDDEN', check === 'expired' ? 'this link has expired' : 'this link is not valid', { rule: check });
}

export const blobGone = (): AppError => new AppError('NOT_FOUND', 'the linked blob no longer exists', { resource: 'blob' });
