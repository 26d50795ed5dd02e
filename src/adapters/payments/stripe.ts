// The payments port (domain/payments/processor.ts) on Stripe's official package. Checkout
// Sessions in payment mode, one line priced in US cents; the top-up's id rides as the
// session's client_reference_id and in the metadata of the session and of its PaymentIntent,
// so either event names it. Webhooks are verified by the package's own constructEvent.
import Stripe from 'stripe';
import type { PaymentsConfig } from '../../config.ts';
import { ProcessorError, SignatureError, type Checkout, type CheckoutState, type PaymentProcessor, type ProcessorEvent } from '../../domain/payments/processor.ts';

const TOPUP_KEY = 'gantryTopup';

export function stripeProcessor(settings: PaymentsConfig): PaymentProcessor {
  const base = settings.stripeApiBase;
  const stripe = new Stripe(settings.stripeSecretKey, {
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'http:' ? 80 : 443), protocol: base.protocol === 'http:' ? 'http' : 'https' } : {}),
    // the client retries a failed call itself, with one idempotency key for all its tries
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
  const guard = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (e instanceof Stripe.errors.StripeError) throw new ProcessorError(`${what}: ${e.message}`);
      throw e;
    }
  };
  return {
    createCheckout: (req) => guard('creating the Checkout Session', async (): Promise<Checkout> => {
      // typed by the package's params: a name or value Stripe does not take fails tsc
      const params = {
        mode: 'payment',
        client_reference_id: req.topupId,
        metadata: { [TOPUP_KEY]: req.topupId, gantryTeam: req.teamId },
        payment_intent_data: { metadata: { [TOPUP_KEY]: req.topupId, gantryTeam: req.teamId } },
        line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: Number(req.amountCents), product_data: { name: req.description } } }],
        success_url: req.returnUrl,
        cancel_url: req.returnUrl,
      } satisfies Stripe.Checkout.SessionCreateParams;
      const s = await stripe.checkout.sessions.create(params, { idempotencyKey: `gantry-${req.topupId}` });
      if (!s.url) throw new ProcessorError('Stripe answered a Checkout Session without a URL');
      return { sessionId: s.id, url: s.url, expiresAtS: s.expires_at };
    }),
    retrieveCheckout: (sessionId) => guard('reading the Checkout Session', async (): Promise<CheckoutState> => {
      const s = await stripe.checkout.sessions.retrieve(sessionId, { expand: ['payment_intent.latest_charge'] } satisfies Stripe.Checkout.SessionRetrieveParams);
      const pi = typeof s.payment_intent === 'object' ? s.payment_intent : null;
      const charge = pi && typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
      return {
        sessionId: s.id, topupId: s.client_reference_id ?? s.metadata?.[TOPUP_KEY] ?? undefined,
        paid: s.payment_status === 'paid', amountMinor: BigInt(s.amount_total ?? 0), currency: s.currency ?? '',
        paymentIntentId: pi?.id ?? (typeof s.payment_intent === 'string' ? s.payment_intent : undefined), receiptUrl: charge?.receipt_url ?? undefined,
      };
    }),
    verifyEvent: (rawBody, signature, nowMs): ProcessorEvent => {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, settings.stripeWebhookSecret, undefined, undefined, nowMs);
      } catch (e) {
        if (e instanceof Stripe.errors.StripeSignatureVerificationError) throw new SignatureError(e.message);
        throw new SignatureError(`not a Stripe event: ${(e as Error).message}`);
      }
      const object = event.data.object as { object?: string; id?: string; metadata?: Record<string, string> | null };
      return {
        id: event.id, type: event.type, topupId: object.metadata?.[TOPUP_KEY] || undefined,
        sessionId: object.object === 'checkout.session' ? object.id : undefined,
      };
    },
  };
}
