import type { App } from '../../types.ts';
import { creditRoute } from './credit-route.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function grantVoucherRoute(app: App, s: { ctx: Ctx }): void {
  creditRoute(app, s, 'voucher', '/admin/v1/teams/:userId/vouchers', 'Grant a voucher (spent before cash)');
}
