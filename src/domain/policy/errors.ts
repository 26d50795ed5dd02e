// The reasons model-access policies refuse with (the account family): a model that cannot be
// written into a policy. A role that may not read or write one is refused as every role is
// (../errors.ts roleRefused).
import { AppError, type Reason } from '../../lib/errors.ts';

export const POLICY_REASONS = ['INVALID_ARGUMENT'] as const satisfies readonly Reason[];

/** `field[i]` names a model the team has not enabled, or one not available. */
export function modelNotUsable(field: string, i: number, model: string): AppError {
  return new AppError('INVALID_ARGUMENT', `${field}[${i}]: model ${model} is not enabled for this team or not available`, {
    field: `${field}[${i}].id`, model, rule: 'model must be enabled for the team and available',
  });
}
