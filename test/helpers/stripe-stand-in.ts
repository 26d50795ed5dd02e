// A local stand-in of the Stripe API for tests, which never reach the internet: Gantry's
// official `stripe` client is pointed at it (its host, port and protocol options). It does
// what Gantry's card top-ups call (Checkout Sessions create/retrieve, PaymentIntents and
// Events retrieve), lets a test play the customer paying (`complete`), and delivers the
// events that makes as signed webhooks, signed exactly as Stripe signs them
// (`Stripe-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`).
// Every request Gantry sends and every answer and event the stand-in gives is validated
// against the excerpt of Stripe's published OpenAPI document (test/fixtures/
// stripe-openapi-excerpt.json, closed objects): a field either side gets wrong fails the
// call and is kept in `violations`, which each test asserts empty.
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';

const EXCERPT = JSON.parse(readFileSync(new URL('../fixtures/stripe-openapi-excerpt.json', import.meta.url), 'utf8')) as { $defs: Record<string, object> };
// JSON answers are checked as they are; form bodies carry every value as text, so their
// validator reads "500" as the integer the schema names (coerceTypes), and only theirs.
const json = new Ajv({ strict: false, allErrors: true, logger: false });
const form = new Ajv({ strict: false, allErrors: true, coerceTypes: true, logger: false });
json.addSchema(EXCERPT);
form.addSchema(EXCERPT);
const validators = new Map<string, ValidateFunction>();
function validator(ajv: Ajv, def: string): ValidateFunction {
  const key = `${ajv === form ? 'form' : 'json'}:${def}`;
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile({ $ref: `https://gantry.test/stripe-openapi-excerpt.json#/$defs/${def}` });
    validators.set(key, v);
  }
  return v;
}

/** Checks `value` (a JSON value, or a decoded form body) against a definition of the excerpt; the errors as text, or undefined when it holds. */
export function checkAgainstStripe(def: string, value: unknown, as: 'json' | 'form' = 'json'): string | undefined {
  const ajv = as === 'form' ? form : json;
  const v = validator(ajv, def);
  return v(value) ? undefined : ajv.errorsText(v.errors, { dataVar: def });
}

/** `a[b][0][c]=x` pairs, as the stripe client encodes them, to the nested object they name. */
export function decodeStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    const value = decodeURIComponent((eq < 0 ? '' : pair.slice(eq + 1)).replace(/\+/g, ' '));
    const path = [key.replace(/\[.*$/, ''), ...[...key.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)];
    let node: Record<string, unknown> | unknown[] = root;
    path.forEach((seg, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!);
      const slot = Array.isArray(node) ? (seg === '' ? node.length : Number(seg)) : seg;
      const holder = node as Record<string | number, unknown>;
      if (last) holder[slot] = value;
      else holder[slot] ??= nextIsIndex ? [] : {};
      node = holder[slot] as Record<string, unknown> | unknown[];
    });
  }
  return root;
}

/** The Stripe-Signature header Stripe sends with `payload` at `timestampS`. */
export function stripeSignature(payload: string, secret: string, timestampS: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestampS}.${payload}`).digest('hex');
  return `t=${timestampS},v1=${v1}`;
}

type Obj = Record<string, unknown>;
export interface StandInEvent { id: string; type: string; payload: string }
/** Where the stand-in delivers a signed webhook; answers the HTTP status Gantry gave. */
export type Deliver = (payload: string, signature: string) => Promise<number>;

export interface StripeStandIn {
  host: string;
  port: number;
  apiKey: string;
  webhookSecret: string;
  /** requests and answers that broke the excerpt of Stripe's schema (each test asserts none) */
  violations: string[];
  /** every request Gantry made, `METHOD /path` */
  calls: string[];
  sessions: Map<string, Obj>;
  /**
   * The customer pays a session: it completes, its PaymentIntent succeeds and a charge with a
   * receipt exists; answers the two events, not yet delivered. `delayed`: a payment method
   * that settles later (a bank debit): the session completes unpaid, its PaymentIntent
   * processing, and only `settle` pays it.
   */
  complete(sessionId: string, opts?: { delayed?: boolean }): StandInEvent[];
  /** A delayed payment arrives: the session paid, its PaymentIntent succeeded; answers checkout.session.async_payment_succeeded and payment_intent.succeeded. */
  settle(sessionId: string): StandInEvent[];
  /** Sends one event to Gantry, signed (with `secret`, the endpoint's by default); answers Gantry's status. */
  deliver(event: StandInEvent, opts?: { secret?: string; timestampS?: number }): Promise<number>;
  close(): Promise<void>;
}

export interface StandInOptions {
  deliver: Deliver;
  /** the stand-in's clock in Unix seconds (Gantry's test clock, so signatures are fresh to it) */
  nowS?: () => number;
}

function newId(prefix: string): string {
  return `${prefix}_test_${randomBytes(12).toString('hex')}`;
}

/** Starts the stand-in on 127.0.0.1 and a free port. */
export async function startStripeStandIn(opts: StandInOptions): Promise<StripeStandIn> {
  const nowS = opts.nowS ?? (() => Math.floor(Date.now() / 1000));
  const apiKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64url')}`;
  const violations: string[] = [];
  const calls: string[] = [];
  const sessions = new Map<string, Obj>();
  const intents = new Map<string, Obj>();
  const charges = new Map<string, Obj>();
  const events = new Map<string, Obj>();
  const byIdempotencyKey = new Map<string, Obj>();

  const checked = (def: string, value: Obj): Obj => {
    const wrong = checkAgainstStripe(def, value);
    if (wrong) {
      violations.push(`stand-in answer: ${wrong}`);
      throw new Error(wrong);
    }
    return value;
  };

  function expandIntent(pi: Obj, expand: string[], prefix: string): Obj {
    if (!expand.includes(`${prefix}latest_charge`) || typeof pi.latest_charge !== 'string') return pi;
    return { ...pi, latest_charge: charges.get(pi.latest_charge) };
  }
  function expandSession(s: Obj, expand: string[]): Obj {
    // Stripe expands a parent named by a nested path too (`payment_intent.latest_charge`)
    if (!expand.some((e) => e === 'payment_intent' || e.startsWith('payment_intent.')) || typeof s.payment_intent !== 'string') return s;
    return { ...s, payment_intent: expandIntent(intents.get(s.payment_intent)!, expand, 'payment_intent.') };
  }

  function createSession(params: Obj): Obj {
    const items = params.line_items as { price_data: { currency: string; unit_amount: string }; quantity: string }[];
    const total = items.reduce((sum, i) => sum + Number(i.price_data.unit_amount) * Number(i.quantity ?? 1), 0);
    const id = newId('cs');
    const session: Obj = {
      id, object: 'checkout.session', mode: params.mode, livemode: false, created: nowS(), expires_at: nowS() + 86_400,
      amount_subtotal: total, amount_total: total, currency: items[0]!.price_data.currency,
      client_reference_id: params.client_reference_id ?? null, metadata: params.metadata ?? {},
      payment_intent: null, payment_method_types: ['card'], payment_status: 'unpaid', status: 'open',
      success_url: params.success_url ?? null, cancel_url: params.cancel_url ?? null,
      url: `https://checkout.stripe.test/c/pay/${id}`,
      // kept for `complete`, never shown: what Gantry asked the PaymentIntent to carry
      _intentMetadata: (params.payment_intent_data as Obj | undefined)?.metadata ?? {},
    };
    sessions.set(id, session);
    return session;
  }
  const shown = (s: Obj): Obj => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('_')));

  function route(method: string, path: string, params: Obj): [number, Obj] {
    const expand = ((params.expand as string[] | undefined) ?? []);
    if (method === 'POST' && path === '/v1/checkout/sessions') return [200, shown(createSession(params))];
    const m = /^\/v1\/(checkout\/sessions|payment_intents|events)\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const id = decodeURIComponent(m[2]!);
      const found = m[1] === 'events' ? events.get(id) : m[1] === 'payment_intents' ? intents.get(id) : sessions.get(id);
      if (!found) return notFound(m[1]!, id);
      if (m[1] === 'events') return [200, found];
      return [200, m[1] === 'payment_intents' ? expandIntent(found, expand, '') : expandSession(shown(found), expand)];
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } }];
  }
  const notFound = (what: string, id: string): [number, Obj] => [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'` } }];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    calls.push(`${method} ${url.pathname}`);
    const answer = (status: number, body: Obj) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      return;
    }
    const params = decodeStripeForm(method === 'GET' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8'));
    const requestDef = method === 'POST' && url.pathname === '/v1/checkout/sessions' ? 'PostCheckoutSessions' : 'GetExpand';
    const wrong = checkAgainstStripe(requestDef, params, 'form');
    if (wrong) {
      violations.push(`Gantry's request ${method} ${url.pathname}: ${wrong}`);
      answer(400, { error: { type: 'invalid_request_error', message: wrong } });
      return;
    }
    const key = method === 'POST' ? req.headers['idempotency-key'] : undefined;
    const replay = typeof key === 'string' ? byIdempotencyKey.get(key) : undefined;
    if (replay) return answer(200, replay);
    const [status, body] = route(method, url.pathname, params);
    const def = status !== 200 ? 'error' : url.pathname.startsWith('/v1/checkout') ? 'checkout.session' : url.pathname.startsWith('/v1/payment_intents') ? 'payment_intent' : 'event';
    try {
      checked(def, body);
    } catch (e) {
      answer(500, { error: { type: 'api_error', message: (e as Error).message } });
      return;
    }
    if (typeof key === 'string' && status === 200) byIdempotencyKey.set(key, body);
    answer(status, body);
  }

  function event(type: string, object: Obj): StandInEvent {
    const e: Obj = {
      id: newId('evt'), object: 'event', type, api_version: '2026-10-28.endive', created: nowS(), livemode: false,
      pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object },
    };
    events.set(e.id as string, checked('event', e));
    return { id: e.id as string, type, payload: JSON.stringify(e, null, 2) };
  }

  function complete(sessionId: string, o: { delayed?: boolean } = {}): StandInEvent[] {
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    const pi: Obj = {
      id: newId('pi'), object: 'payment_intent', amount: s.amount_total, amount_received: 0, currency: s.currency,
      created: nowS(), livemode: false, metadata: s._intentMetadata, status: 'processing', latest_charge: null,
    };
    intents.set(pi.id as string, checked('payment_intent', pi));
    Object.assign(s, { status: 'complete', payment_status: 'unpaid', payment_intent: pi.id, url: null });
    if (o.delayed) return [event('checkout.session.completed', shown(s))];
    const succeeded = pay(s, pi);
    return [event('checkout.session.completed', shown(s)), succeeded];
  }

  /** The money arrives: a charge with its receipt, the PaymentIntent succeeded, the session paid; answers payment_intent.succeeded. */
  function pay(s: Obj, pi: Obj): StandInEvent {
    const ch: Obj = {
      id: newId('ch'), object: 'charge', amount: s.amount_total, amount_captured: s.amount_total, amount_refunded: 0, captured: true,
      created: nowS(), currency: s.currency, disputed: false, livemode: false, metadata: {}, paid: true, payment_intent: pi.id,
      receipt_url: `https://pay.stripe.test/receipts/payment/${pi.id}`, refunded: false, status: 'succeeded',
    };
    charges.set(ch.id as string, checked('charge', ch));
    Object.assign(pi, { status: 'succeeded', amount_received: s.amount_total, latest_charge: ch.id });
    checked('payment_intent', pi);
    s.payment_status = 'paid';
    return event('payment_intent.succeeded', pi);
  }

  function settle(sessionId: string): StandInEvent[] {
    const s = sessions.get(sessionId);
    const pi = s && typeof s.payment_intent === 'string' ? intents.get(s.payment_intent) : undefined;
    if (!s || !pi || s.payment_status !== 'unpaid') throw new Error(`session ${sessionId} has no delayed payment to settle`);
    const succeeded = pay(s, pi);
    return [event('checkout.session.async_payment_succeeded', shown(s)), succeeded];
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      violations.push(`stand-in failed: ${(e as Error).message}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1', port, apiKey, webhookSecret, violations, calls, sessions, complete, settle,
    deliver: (e, o = {}) => opts.deliver(e.payload, stripeSignature(e.payload, o.secret ?? webhookSecret, o.timestampS ?? nowS())),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
