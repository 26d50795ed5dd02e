// One contract for both counter implementations: in-process always, Redis when
// TEST_REDIS_URL is set. The load protocol, leases, windows and refunds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AdmitRequest, BudgetScope, Counters } from '../../domain/spend/counters.ts';
import { keyScope, teamScope } from '../../domain/spend/scopes.ts';
import { MemoryCounters } from './memory.ts';
import { RedisCounters } from './redis.ts';

const impls: Array<{ name: string; make: () => Counters }> = [{ name: 'memory', make: () => new MemoryCounters() }];
if (process.env.TEST_REDIS_URL) impls.push({ name: 'redis', make: () => new RedisCounters({ url: process.env.TEST_REDIS_URL!, nowMs: () => T0 }) });

const uid = () => randomBytes(6).toString('hex');
const T0 = 1_800_000_000_000;

function req(over: Partial<AdmitRequest> & { scopes: BudgetScope[]; rateKey: string }): AdmitRequest {
  const wall = Date.now();
  const { rateKey, ...rest } = over;
  return {
    requestId: uid(), nowMs: T0, wallMs: wall, costMicro: 100n, leaseUntilMs: wall + 60_000, stateTtlMs: 60_000,
    rate: { key: rateKey, rpmLimit: null, tpmLimit: null, tokens: 10, windowMs: 60_000 }, ...rest,
  };
}

async function loadAll(c: Counters, scopes: BudgetScope[], base: bigint) {
  for (const s of scopes) await c.load(s, await c.generation(s), base, Date.now(), 60_000);
}

for (const impl of impls) {
  test(`${impl.name}: reservations are taken from every scope at once or not at all`, async () => {
    const c = impl.make();
    await c.start?.();
    try {
      const key = keyScope(uid());
      const team = teamScope(uid());
      const rateKey = uid();
      const first = await c.admit(req({ scopes: [key, team], rateKey }));
      assert.equal(first.kind, 'load');
      await c.load(key, await c.generation(key), 250n, Date.now(), 60_000);
      await c.load(team, await c.generation(team), 1000n, Date.now(), 60_000);
      const a = await c.admit(req({ scopes: [key, team], rateKey, requestId: 'a' }));
      const b = await c.admit(req({ scopes: [key, team], rateKey, requestId: 'b' }));
      const x = await c.admit(req({ scopes: [key, team], rateKey, requestId: 'x' }));
      assert.deepEqual([a.kind, b.kind, x.kind], ['ok', 'ok', 'budget']);
      assert.deepEqual(x.kind === 'budget' && x.scope, key);
      assert.equal(x.kind === 'budget' && x.availableMicro, 50n);
      assert.equal(await c.reservedMicro(team, Date.now()), 200n, 'the refused request reserved nothing');
      await c.settle({ requestId: 'a', rate: { key: rateKey, tokensUsed: 3 }, scopes: [key, team], actualMicro: 30n });
      assert.equal(await c.reservedMicro(team, Date.now()), 100n);
      const y = await c.admit(req({ scopes: [key, team], rateKey, requestId: 'y' }));
      assert.equal(y.kind, 'ok', '250 − 30 settled − 100 reserved leaves 120');
      const z = await c.admit(req({ scopes: [key, team], rateKey, requestId: 'z', costMicro: 21n }));
      assert.equal(z.kind, 'budget');
    } finally {
      await c.close();
    }
  });

  test(`${impl.name}: settlements given in one turn each reach their scopes, debt and rate window`, async () => {
    const c = impl.make();
    await c.start?.();
    try {
      const [keyA, keyB, keyC, team] = [keyScope(uid()), keyScope(uid()), keyScope(uid()), teamScope(uid())];
      const rateKey = uid();
      await loadAll(c, [keyA, keyB], 1000n);
      await loadAll(c, [team], 10_000n);
      const admitted: Array<{ id: string; scopes: BudgetScope[] }> = [];
      for (let i = 0; i < 10; i++) {
        const scopes = i % 2 ? [keyB, team] : [keyA, team];
        const id = `s${i}-${uid()}`;
        assert.equal((await c.admit(req({ scopes, rateKey, requestId: id }))).kind, 'ok');
        admitted.push({ id, scopes });
      }
      // all in the same turn (no await between them): request i cost i × 10 and used i
      // tokens; one more is a charge on a scope whose state is not loaded (it waits as debt)
      const settles: Promise<void>[] = [];
      for (const [i, a] of admitted.entries()) {
        settles.push(c.settle({ requestId: a.id, rate: { key: rateKey, tokensUsed: i }, scopes: a.scopes, actualMicro: BigInt(i * 10) }));
      }
      settles.push(c.settle({ requestId: uid(), scopes: [keyC], actualMicro: 40n }));
      await Promise.all(settles);
      const available = async (scope: BudgetScope) => {
        const r = await c.admit({ ...req({ scopes: [scope], rateKey: uid() }), costMicro: 10n ** 12n });
        assert.equal(r.kind, 'budget');
        return r.kind === 'budget' ? r.availableMicro : -1n;
      };
      assert.equal(await available(keyA), 1000n - (0n + 20n + 40n + 60n + 80n), 'key A: its five charges, nothing reserved');
      assert.equal(await available(keyB), 1000n - (10n + 30n + 50n + 70n + 90n), 'key B: its five charges');
      assert.equal(await available(team), 10_000n - 450n, 'the team: all ten');
      await c.load(keyC, await c.generation(keyC), 1000n, Date.now(), 60_000);
      assert.equal(await available(keyC), 960n, 'the charge settled before its scope was loaded counts');
      const next = await c.admit(req({ scopes: [team], rateKey }));
      assert.equal(next.kind, 'ok');
      assert.equal(next.kind === 'ok' && next.rate.requests, 11);
      assert.equal(next.kind === 'ok' && next.rate.tokens, 45 + 10, 'the window counts the tokens each request used');
    } finally {
      await c.close();
    }
  });

  test(`${impl.name}: charges settled while state is unloaded are not lost (debt), and invalidation refuses a stale load`, async () => {
    const c = impl.make();
    await c.start?.();
    try {
      const key = keyScope(uid());
      const rateKey = uid();
      const gen = await c.generation(key);
      // A replica read the ledger (1000), then a charge of 400 committed and settled before the load landed.
      await c.settle({ requestId: 'r', rate: { key: rateKey, tokensUsed: 0 }, scopes: [key], actualMicro: 400n });
      await c.load(key, gen, 1000n, Date.now(), 60_000);
      assert.equal((await c.admit(req({ scopes: [key], rateKey, costMicro: 601n }))).kind, 'budget');
      assert.equal((await c.admit(req({ scopes: [key], rateKey, costMicro: 600n }))).kind, 'ok');
      // A budget change bumps the generation: a load that read the ledger before it is ignored.
      const old = await c.generation(key);
      await c.invalidate(key);
      await c.load(key, old, 5000n, Date.now(), 60_000);
      assert.equal((await c.admit(req({ scopes: [key], rateKey }))).kind, 'load');
      await loadAll(c, [key], 2000n);
      // External postings move the base directly once it is loaded.
      await c.applyPosted([{ scope: key, deltaMicro: -1500n }]);
      const r = await c.admit(req({ scopes: [key], rateKey, costMicro: 1n }));
      assert.equal(r.kind, 'budget', '2000 loaded − 1500 posted − the 600 still reserved < 1');
      assert.equal(r.kind === 'budget' && r.availableMicro, -100n);
    } finally {
      await c.close();
    }
  });

  test(`${impl.name}: requests of one millisecond count one by one: the RPM and TPM limits, one request's refund, leaving the window together`, async () => {
    const c = impl.make();
    await c.start?.();
    try {
      const team = teamScope(uid());
      const rateKey = uid();
      await loadAll(c, [team], 1000n);
      const rate = { key: rateKey, rpmLimit: 4, tpmLimit: 100, tokens: 30, windowMs: 60_000 };
      const admit = (over: Partial<AdmitRequest> = {}) => c.admit(req({ scopes: [team], rateKey, costMicro: 0n, rate, ...over }));
      const ids = [uid(), uid(), uid()];
      for (const requestId of ids) assert.equal((await admit({ requestId })).kind, 'ok'); // all at T0: 3 requests, 90 tokens
      assert.equal((await admit({ rate: { ...rate, tokens: 20 } })).kind, 'tpm', '90 + 20 > 100');
      await c.settle({ requestId: ids[1]!, rate: { key: rateKey, tokensUsed: 5 }, scopes: [team], actualMicro: 0n });
      const fourth = await admit({ rate: { ...rate, tokens: 20 } }); // 65 + 20: the refund of one request of the millisecond
      assert.equal(fourth.kind, 'ok');
      assert.deepEqual(fourth.kind === 'ok' && [fourth.rate.requests, fourth.rate.tokens], [4, 85]);
      assert.equal((await admit({ rate: { ...rate, tokens: 1 } })).kind, 'rpm', 'four requests of the same millisecond are four');
      const later = await admit({ rate: { ...rate, rpmLimit: 1, tokens: 1 }, nowMs: T0 + 60_000 });
      assert.equal(later.kind, 'ok', 'all four left the window at once');
      assert.deepEqual(later.kind === 'ok' && [later.rate.requests, later.rate.tokens], [1, 1]);
    } finally {
      await c.close();
    }
  });

  test(`${impl.name}: expired leases are given back; RPM and TPM windows slide and refund`, async () => {
    const c = impl.make();
    await c.start?.();
    try {
      const team = teamScope(uid());
      const rateKey = uid();
      await loadAll(c, [team], 100n);
      const dead = await c.admit(req({ scopes: [team], rateKey: uid(), leaseUntilMs: Date.now() - 1 }));
      assert.equal(dead.kind, 'ok');
      assert.equal(await c.reservedMicro(team, Date.now()), 0n, 'a lease whose holder died expires');
      // Leases differ in length: one ending before a lease taken earlier still ends on time.
      const long = await c.admit(req({ scopes: [team], rateKey: uid(), costMicro: 10n, leaseUntilMs: Date.now() + 60_000 }));
      const short = await c.admit(req({ scopes: [team], rateKey: uid(), costMicro: 20n, leaseUntilMs: Date.now() + 30 }));
      assert.equal(long.kind, 'ok');
      assert.equal(short.kind, 'ok');
      assert.equal(await c.reservedMicro(team, Date.now()), 30n);
      assert.equal(await c.reservedMicro(team, Date.now() + 31), 10n, 'the shorter lease ended, the longer one holds');
      const rate = { key: rateKey, rpmLimit: 2, tpmLimit: 100, tokens: 40, windowMs: 60_000 };
      const r1 = await c.admit(req({ scopes: [team], rateKey, costMicro: 0n, rate: { ...rate }, requestId: 'r1' }));
      assert.equal(r1.kind, 'ok');
      const r2 = await c.admit(req({ scopes: [team], rateKey, costMicro: 0n, rate: { ...rate, tokens: 70 }, nowMs: T0 + 1000 }));
      assert.equal(r2.kind, 'tpm', '40 + 70 > 100');
      // Retry-After of TOKEN_LIMIT_EXCEEDED: when enough tokens leave the window (r1's, admitted at T0)
      assert.equal(r2.kind === 'tpm' && r2.retryAfterMs, 59_000);
      await c.settle({ requestId: 'r1', rate: { key: rateKey, tokensUsed: 5 }, scopes: [team], actualMicro: 0n });
      const r3 = await c.admit(req({ scopes: [team], rateKey, costMicro: 0n, rate: { ...rate, tokens: 70 }, nowMs: T0 + 1000 }));
      assert.equal(r3.kind, 'ok', 'refunded to 5 real tokens');
      const r4 = await c.admit(req({ scopes: [team], rateKey, costMicro: 0n, rate: { ...rate, tokens: 1 }, nowMs: T0 + 2000 }));
      assert.equal(r4.kind, 'rpm');
      assert.equal(r4.kind === 'rpm' && r4.retryAfterMs, 58_000);
      const r5 = await c.admit(req({ scopes: [team], rateKey, costMicro: 0n, rate: { ...rate, tokens: 1 }, nowMs: T0 + 60_001 }));
      assert.equal(r5.kind, 'ok', 'the first request left the window');
    } finally {
      await c.close();
    }
  });
}

// Redis only: every key the scripts write carries a lifetime (nothing is left for ever), also
// a window or lease set that emptied (Redis deletes it) and is created anew.
test('redis: every key written has a lifetime, also a window or lease set re-created after it emptied', { skip: !process.env.TEST_REDIS_URL && 'needs TEST_REDIS_URL' }, async () => {
  const { Redis } = await import('ioredis');
  const { scopeKey } = await import('../../domain/spend/scopes.ts');
  const c = new RedisCounters({ url: process.env.TEST_REDIS_URL!, nowMs: () => T0 });
  const r = new Redis(process.env.TEST_REDIS_URL!);
  await c.start();
  try {
    const team = teamScope(uid());
    const rateKey = uid();
    const keys = [`gw:rz:${rateKey}`, `gw:rh:${rateKey}`, `gw:b:${scopeKey(team)}`, `gw:bz:${scopeKey(team)}`];
    const ttls = async () => Promise.all(keys.map((k) => r.pttl(k)));
    await loadAll(c, [team], 1000n);
    const first = req({ scopes: [team], rateKey });
    assert.equal((await c.admit(first)).kind, 'ok');
    for (const [i, t] of (await ttls()).entries()) assert.ok(t > 0, `${keys[i]} has a lifetime (${t})`);
    // the lease set empties (and goes), the window's entry leaves the window: both come back
    await c.settle({ requestId: first.requestId, rate: { key: rateKey, tokensUsed: 1 }, scopes: [team], actualMicro: 1n });
    assert.equal(await r.exists(keys[3]!), 0, 'an empty lease set is gone');
    assert.equal((await c.admit(req({ scopes: [team], rateKey, nowMs: T0 + 61_000 }))).kind, 'ok');
    for (const [i, t] of (await ttls()).entries()) assert.ok(t > 0, `${keys[i]} has a lifetime again (${t})`);
  } finally {
    await c.close();
    r.disconnect();
  }
});
