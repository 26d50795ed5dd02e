// The card top-up settings (src/config.ts, readPayments): off without the keys, refused
// when half set or when the range is not whole cents Stripe can charge. No database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config.ts';

const KEYS = { GANTRY_STRIPE_SECRET_KEY: 'sk_test_abc', GANTRY_STRIPE_WEBHOOK_SECRET: 'whsec_abc' };

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return '';
}

test('card top-ups are off without Stripe keys, on with both, with the default range of $5 to $10,000', () => {
  assert.equal(loadConfig({}).payments, undefined);
  const on = loadConfig({ ...KEYS, GANTRY_PUBLIC_URL: 'https://gantry.example.com/' }).payments!;
  assert.equal(on.minTopupUnits, 50_000n);
  assert.equal(on.maxTopupUnits, 100_000_000n);
  assert.equal(on.stripeApiBase, undefined, 'Stripe\'s own API unless a base is given');
  assert.equal(on.returnUrl, 'https://gantry.example.com/console/#/overview');
  const local = loadConfig({ ...KEYS, GANTRY_STRIPE_API_BASE: 'http://127.0.0.1:12111', GANTRY_TOPUP_MIN_USD: '0.50', GANTRY_TOPUP_MAX_USD: '$250.25' }).payments!;
  assert.equal(local.stripeApiBase?.port, '12111');
  assert.equal(local.minTopupUnits, 5_000n);
  assert.equal(local.maxTopupUnits, 2_502_500n);
});

test('card top-up settings that cannot work are refused at start, each named', () => {
  assert.match(problems({ GANTRY_STRIPE_SECRET_KEY: 'sk_test_abc' }), /set together/);
  assert.match(problems({ GANTRY_STRIPE_WEBHOOK_SECRET: 'whsec_abc' }), /set together/);
  assert.match(problems({ ...KEYS, GANTRY_STRIPE_SECRET_KEY: 'pk_test_abc' }), /GANTRY_STRIPE_SECRET_KEY must be a Stripe secret key/);
  assert.match(problems({ ...KEYS, GANTRY_STRIPE_WEBHOOK_SECRET: 'abc' }), /GANTRY_STRIPE_WEBHOOK_SECRET must be/);
  assert.match(problems({ ...KEYS, GANTRY_TOPUP_MIN_USD: '0.25' }), /at least \$0\.50/);
  assert.match(problems({ ...KEYS, GANTRY_TOPUP_MIN_USD: '5.005' }), /GANTRY_TOPUP_MIN_USD must be dollars in whole cents/);
  assert.match(problems({ ...KEYS, GANTRY_TOPUP_MIN_USD: '100', GANTRY_TOPUP_MAX_USD: '50' }), /below GANTRY_TOPUP_MIN_USD/);
  assert.match(problems({ ...KEYS, GANTRY_STRIPE_API_BASE: 'ftp://x' }), /GANTRY_STRIPE_API_BASE must use/);
});
