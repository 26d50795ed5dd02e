// The payments port: what Gantry asks of a card processor. One adapter implements it on
// Stripe's official package (adapters/payments/stripe.ts); the composition root builds it
// when Stripe is configured (src/services.ts), so the domain never sees the client.

/** A Checkout Session to open for a top-up: an amount in US cents for one line, and where the customer comes back to. */
export interface CheckoutRequest {
  topupId: string;
  teamId: string;
  amountCents: bigint;
  /** shown to the customer on Stripe's page */
  description: string;
  returnUrl: string;
}

export interface Checkout {
  sessionId: string;
  /** Stripe's hosted payment page */
  url: string;
  expiresAtS: number;
}

/** A Checkout Session as the processor has it now (never as a webhook said it was). */
export interface CheckoutState {
  sessionId: string;
  /** the Gantry top-up it was opened for (client_reference_id); undefined: not one of Gantry's */
  topupId: string | undefined;
  /** Stripe says the money arrived (payment_status `paid`) */
  paid: boolean;
  /** what was paid, in the currency's minor units */
  amountMinor: bigint;
  currency: string;
  paymentIntentId: string | undefined;
  receiptUrl: string | undefined;
}

/** A verified webhook event: its id, type and the Gantry top-up its object names. */
export interface ProcessorEvent {
  id: string;
  type: string;
  /** from the object's metadata (a Checkout Session's or a PaymentIntent's) */
  topupId: string | undefined;
  /** the Checkout Session the event is about, when its object is one */
  sessionId: string | undefined;
}

export interface PaymentProcessor {
  createCheckout(req: CheckoutRequest): Promise<Checkout>;
  retrieveCheckout(sessionId: string): Promise<CheckoutState>;
  /**
   * The event, when `signature` is the processor's signature of exactly `rawBody`, made
   * within its tolerance (five minutes) of `nowMs`; a SignatureError otherwise (nothing of the body is trusted then).
   */
  verifyEvent(rawBody: string, signature: string, nowMs: number): ProcessorEvent;
}

/** A webhook whose signature does not hold (wrong secret, altered body, too old, missing). */
export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}

/** The processor could not be reached or refused a call; the customer or Stripe tries again. */
export class ProcessorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProcessorError';
  }
}
