// What the in-process counters (the embedded default) hold for one rate window, and what an
// admission plus its settlement costs: 300,000 requests at 5,000 a second on one window of
// 60 s (a full window at that rate), three budget scopes, ids minted as the gateway mints them.
// Usage: node --expose-gc bench/gateway/rate-window.ts [--src <other checkout>/src]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const src = pathToFileURL(resolve(args.includes('--src') ? args[args.indexOf('--src') + 1]! : new URL('../../src', import.meta.url).pathname)).href;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const { MemoryCounters } = await import(`${src}/adapters/counters/memory.ts`);
const { keyScope, teamScope, memberScope } = await import(`${src}/domain/spend/scopes.ts`);
const { newId } = await import(`${src}/lib/ids.ts`);

const counters = new MemoryCounters();
const scopes = [keyScope('k'), memberScope('m'), teamScope('t')];
for (const s of scopes) await counters.load(s, '0', 10n ** 15n, Date.now(), 3_600_000);
const held = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers; // typed arrays' contents are outside the heap
};
const before = held();
const N = 300_000;
let now = 1_000_000;
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  now += 0.2;
  const requestId = newId('request', Math.floor(now));
  const r = await counters.admit({
    // nowMs in whole milliseconds, as the system clock (Date.now) gives it
    requestId, nowMs: Math.floor(now), wallMs: Date.now(), scopes, costMicro: 10n, leaseUntilMs: Date.now() + 60_000, stateTtlMs: 3_600_000,
    rate: { key: 'team:model', rpmLimit: 1e9, tpmLimit: 1e12, tokens: 100, windowMs: 60_000 },
  });
  if (r.kind !== 'ok') throw new Error(`not admitted: ${r.kind}`);
  await counters.settle({ requestId, rate: { key: 'team:model', tokensUsed: 50 }, scopes, actualMicro: 5n });
}
const us = ((performance.now() - t0) * 1000) / N;
const after = held();
const view = await counters.admit({ requestId: 'last', nowMs: now, wallMs: Date.now(), scopes, costMicro: 0n, leaseUntilMs: Date.now() + 1000, stateTtlMs: 3_600_000, rate: { key: 'team:model', rpmLimit: 1e9, tpmLimit: 1e12, tokens: 0, windowMs: 60_000 } });
process.stdout.write(`${src}: a window of ${view.rate?.requests ?? '?'} requests holds ${((after - before) / 1e6).toFixed(1)} MB `
  + `(${((after - before) / N).toFixed(0)} B a request); admit + settle ${us.toFixed(2)} µs\n`);

// Most windows are idle at any moment (one per team and model): what one costs once its
// requests have left it. 10,000 windows, each admitted once, then looked at a window later.
const idle = new MemoryCounters();
const idleBefore = held();
const K = 10_000;
const ask = (i: number, id: string, nowMs: number, rpmLimit: number) => idle.admit({
  requestId: id, nowMs, wallMs: Date.now(), scopes: [], costMicro: 0n, leaseUntilMs: Date.now() + 1000, stateTtlMs: 3_600_000,
  rate: { key: `team${i}:model`, rpmLimit, tpmLimit: 1e12, tokens: 1, windowMs: 60_000 },
});
for (let i = 0; i < K; i++) {
  await ask(i, `r${i}`, 1_000, 1e9);
  await idle.settle({ requestId: `r${i}`, rate: { key: `team${i}:model`, tokensUsed: 1 }, scopes: [], actualMicro: 0n });
}
// each window is looked at a window later (emptied) by a request it refuses (an RPM limit of 0), so it stays empty
for (let i = 0; i < K; i++) await ask(i, `later${i}`, 200_000, 0);
const idleHeld = held();
if (!counters) throw new Error('unreachable'); // the full window above stays alive, out of this measurement
process.stdout.write(`${src}: an idle window (one of ${K}) holds ${((idleHeld - idleBefore) / K).toFixed(0)} B\n`);
