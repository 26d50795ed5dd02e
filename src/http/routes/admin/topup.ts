import type { App, Services } from '../../types.ts';
import { creditRoute } from './credit-route.ts';

export default function topupRoute(app: App, s: Pick<Services, 'ctx'>): void {
  creditRoute(app, s, 'topup', '/admin/v1/teams/:userId/topups', 'Top up cash (repays outstanding invoices first)');
}
