import { Type } from 'typebox';
import { receiveStripeWebhook } from '../../../domain/payments/topups.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { PAYMENTS_BASE, TAGS } from './schemas.ts';
import type { Payments } from '../../../domain/payments/payments.ts';

/**
 * Stripe's webhook: public (Stripe has no Gantry key), trusted only through its signature,
 * which covers the exact bytes sent, so the body is read as text in a scope of its own and
 * never parsed before it is verified.
 */
export default function stripeWebhookRoute(app: App, s: { payments: Payments }): void {
  void app.register((child, _opts, registered) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    child.post(`${PAYMENTS_BASE}/stripe/webhook`, {
      config: { family: 'account', auth: { kind: 'public' } },
      schema: {
        tags: TAGS,
        summary: 'Stripe\'s webhook endpoint (checkout.session.completed, payment_intent.succeeded): verified by its Stripe-Signature, credits a top-up once',
        response: { 200: Type.Object({ received: Type.Boolean(), outcome: Type.String({ enum: ['credited', 'duplicate', 'ignored', 'unpaid'] }) }), ...errors(400, 404, 503) },
      },
    }, async (req) => {
      const signature = req.headers['stripe-signature'];
      const raw = typeof req.body === 'string' ? req.body : '';
      return { received: true, outcome: await receiveStripeWebhook(s.payments, raw, typeof signature === 'string' ? signature : undefined) };
    });
    registered();
  });
}
