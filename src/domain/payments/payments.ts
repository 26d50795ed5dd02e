// What payment operations need (paymentsContext: the area's entry of src/areas.ts).
import type { Ctx } from '../context.ts';
import type { Config, PaymentsConfig } from '../../config.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PaymentProcessor } from './processor.ts';

export interface Payments {
  ctx: Ctx;
  log: Logger;
  /** undefined while Stripe is not configured: every operation answers 404 (errors.ts, paymentsOff) */
  card: { settings: PaymentsConfig; processor: PaymentProcessor } | undefined;
}

/** The payments area's context from the graph: the processor the composition root built (none without Stripe settings). */
export function paymentsContext(s: { ctx: Ctx; config: Config; log: Logger; paymentProcessor: PaymentProcessor | undefined }): Payments {
  const card = s.config.payments && s.paymentProcessor ? { settings: s.config.payments, processor: s.paymentProcessor } : undefined;
  return { ctx: s.ctx, log: s.log.child({ component: 'payments' }), card };
}
