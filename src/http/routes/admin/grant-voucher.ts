import type { App, Services } from '../../types.ts';
import { creditRoute } from './credit-route.ts';

export default function grantVoucherRoute(app: App, s: Pick<Services, 'ctx'>): void {
  creditRoute(app, s, 'voucher', '/admin/v1/teams/:userId/vouchers', 'Grant a voucher (spent before cash)');
}
