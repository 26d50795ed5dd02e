// What the Redis counters cost Redis per model request (admit + settle, a rate window and the
// three budget scopes, as the gateway calls them): commands run inside the scripts and the
// scripts' time, from Redis's own INFO commandstats, with 20 requests in flight. Counts are
// exact; times move with the machine, so compare runs made one after the other.
// Usage: BENCH_REDIS_URL=redis://127.0.0.1:6379 node bench/gateway/redis-cost.ts [--requests N] [--src DIR]
// (--src: the `src` directory of another checkout, e.g. a git worktree of the commit before;
// the bench uses Redis database 15 and refuses to run unless it is empty.)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const args = process.argv.slice(2);
const opt = (name: string, def: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : def);
const requests = Number(opt('--requests', '20000'));
const src = pathToFileURL(resolve(opt('--src', new URL('../../src', import.meta.url).pathname))).href;
const base = process.env.BENCH_REDIS_URL;
if (!base) throw new Error('set BENCH_REDIS_URL');
const url = new URL(base);
url.pathname = '/15';

const { RedisCounters } = await import(`${src}/adapters/counters/redis.ts`);
const { teamScope, memberScope, keyScope } = await import(`${src}/domain/spend/scopes.ts`);
const admin = new Redis(url.toString());
if ((await admin.dbsize()) > 0) throw new Error(`${url} is not empty: this bench writes and flushes it`);
const counters = new RedisCounters({ url: url.toString(), nowMs: Date.now });
await counters.start();
const scopes = [teamScope('bench-team'), memberScope('bench-member'), keyScope('bench-key')];
let n = 0;
async function request(): Promise<void> {
  const id = `req-${n++}`;
  const now = Date.now();
  const req = {
    requestId: id, nowMs: now, wallMs: now, scopes, costMicro: 100n, leaseUntilMs: now + 60_000, stateTtlMs: 600_000,
    rate: { key: 'bench-team:bench-model', rpmLimit: 1e9, tpmLimit: 1e12, tokens: 100, windowMs: 60_000 },
  };
  let r = await counters.admit(req);
  if (r.kind === 'load') {
    for (const s of r.scopes) await counters.load(s, await counters.generation(s), 10n ** 15n, now, 600_000);
    r = await counters.admit(req);
  }
  if (r.kind !== 'ok') throw new Error(`not admitted: ${r.kind}`);
  await counters.settle({ requestId: id, rate: { key: 'bench-team:bench-model', tokensUsed: 50 }, scopes, actualMicro: 50n });
}

try {
  for (let i = 0; i < 2000; i++) await request(); // state loaded, scripts cached, window filling
  await admin.config('RESETSTAT');
  const n0 = n;
  await Promise.all(Array.from({ length: 20 }, async () => { while (n - n0 < requests) await request(); }));
  const done = n - n0;
  let calls = 0;
  let scripts = 0;
  let scriptUs = 0;
  for (const line of (await admin.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (!m) continue;
    if (m[1] === 'evalsha' || m[1] === 'eval') {
      scripts += Number(m[2]);
      scriptUs += Number(m[3]);
    } else if (m[1] !== 'info' && m[1] !== 'config|resetstat') calls += Number(m[2]);
  }
  // the heartbeat's GET (every 250 ms) is in `calls` too: a few per run, nothing per request
  process.stdout.write(`${src}: ${(calls / done).toFixed(1)} commands in ${(scripts / done).toFixed(2)} scripts per request; `
    + `script time ${(scriptUs / done).toFixed(1)} µs per request (${done} requests)\n`);
} finally {
  await counters.close();
  await admin.flushdb();
  admin.disconnect();
}
