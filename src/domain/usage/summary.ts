// The operator's view of a team's metered model usage (counts for reconciliation).
import type { Ctx } from '../context.ts';
import { requireTeam } from '../accounts/teams.ts';
import { usageTotals } from '../../store/usage.ts';

export async function usageSummary(ctx: Ctx, teamId: string) {
  await requireTeam(ctx, teamId);
  return usageTotals(ctx.db, teamId);
}
