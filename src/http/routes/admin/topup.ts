import type { App } from '../../types.ts';
import { creditRoute } from './credit-route.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function topupRoute(app: App, s: { ctx: Ctx }): void {
  creditRoute(app, s, 'topup', '/admin/v1/teams/:userId/topups', 'Top up cash (repays outstanding invoices first)');
}
