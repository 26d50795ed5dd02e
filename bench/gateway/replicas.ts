// Two Gantry replicas against one, in the replica setup (PostgreSQL + Redis): the mock
// upstream, replica A on a fresh database (gantry.ts --postgres), replica B joined to A's
// database and Redis (gantry.ts --join). First A alone at N connections, then A and B at N
// connections each at once; req/s of each, the ratio (issue 17's goal: two ≥ 1.6× one), and
// the check that every answered request was recorded once. The load generator is this process.
// Usage: BENCH_DATABASE_URL=… BENCH_REDIS_URL=… node bench/gateway/replicas.ts [--seconds 4] [--conns 50] [--warmup 10]
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { load, type LoadResult } from './load.ts';
import { setupGantry, usageMismatch, usageOf, type BenchGantry } from './setup.ts';
import { children, start } from './servers.ts';

if (!process.env.BENCH_DATABASE_URL || !process.env.BENCH_REDIS_URL) {
  process.stderr.write('set BENCH_DATABASE_URL and BENCH_REDIS_URL (replicas share PostgreSQL and Redis)\n');
  process.exit(2);
}
const args = process.argv.slice(2);
const num = (name: string, def: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : def);
const seconds = num('--seconds', 4);
const conns = num('--conns', 50);
const warmupS = num('--warmup', 10); // each replica alone first, unmeasured (JIT tier-up: see run.ts)
const request = JSON.stringify({ model: 'bench/mock', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 16 });

/** The machine's busy share (all cores, everything on it) over a cell, from /proc/stat (Linux). */
async function busy<T>(run: () => Promise<T>): Promise<[T, string]> {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { idle: f[3]! + f[4]!, total: f.reduce((x, y) => x + y, 0) };
  };
  const s0 = read();
  const out = await run();
  const s1 = read();
  return [out, `${(100 * (1 - (s1.idle - s0.idle) / (s1.total - s0.total))).toFixed(0)} % of the machine busy`];
}

try {
  const mock = await start('mock.ts');
  const a = await start('gantry.ts', '--postgres');
  await setupGantry(a, mock.url);
  const b = await start('gantry.ts', '--join', a.databaseUrl);
  const at = (g: { url: string }) => (n: number) =>
    load(g.url, '/openai/v1/chat/completions', { 'content-type': 'application/json', authorization: `Bearer ${a.creds.apiKey}` }, request, n, 1000, seconds * 1000);
  const line = (name: string, r: LoadResult) => `${name}: ${r.reqPerS.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(3)} ms, p99 ${r.p99Ms.toFixed(3)} ms, errors ${r.errors}`;

  let warmed = 0;
  if (warmupS > 0) for (const g of [a, b]) warmed += (await load(g.url, '/openai/v1/chat/completions', { 'content-type': 'application/json', authorization: `Bearer ${a.creds.apiKey}` }, request, conns, 0, warmupS * 1000)).totalRequests;
  const [one, oneBusy] = await busy(() => at(a)(conns));
  const [[twoA, twoB], twoBusy] = await busy(() => Promise.all([at(a)(conns), at(b)(conns)]));
  const both = twoA.reqPerS + twoB.reqPerS;
  const answered = warmed + one.totalRequests + twoA.totalRequests + twoB.totalRequests;
  const usage = await usageOf(a as BenchGantry); // a read of money: every replica's journal is moved first
  console.log(`${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}, ${seconds} s per cell after 1 s warm-up, ${conns} connections per replica`);
  console.log(`${line('one replica', one)} (${oneBusy})`);
  console.log(line('two replicas, A', twoA));
  console.log(line('two replicas, B', twoB));
  console.log(`two replicas together: ${both.toFixed(0)} req/s = ${(both / one.reqPerS).toFixed(2)}× one replica (goal ≥ 1.6×; ${twoBusy})`);
  console.log(`answered ${answered}, recorded ${usage.events} usage events, charged in ${usage.ledgerCharges} ledger charges covering ${usage.chargedRequests} requests ${usageMismatch(usage, answered)}`);
} finally {
  // the joined replica first: A drops the database when it stops
  for (const c of [...children].reverse()) {
    await new Promise((r) => { c.once('exit', r); c.stdin?.end(); setTimeout(r, 10_000).unref(); });
  }
  process.exit(0);
}
