// bench/gateway: one mock upstream on 127.0.0.1; (a) direct to it, (b) a bare Fastify +
// undici proxy, (c) Gantry with every check on (key auth, model, policy, team models,
// RPM/TPM, key + member budget + balance reservation, settlement, durable ledger write).
// Each runs in its own process; this process is the load generator.
// Usage: node bench/gateway/run.ts [--write] [--seconds N] [--warmup S] [--only c,d] [--conns 1,50]
// (--write updates bench/README.md; --only/--conns run some cells and print only their lines,
// for profiling one variant with BENCH_PROFILE)
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { load, type LoadResult } from './load.ts';
import { setupGantry, usageMismatch, usageOf, type BenchGantry } from './setup.ts';
import { children, start, here } from './servers.ts';

const args = process.argv.slice(2);
const seconds = Number(args[args.indexOf('--seconds') + 1] ?? 0) || 4;
// Each server is first run for this long at 50 connections, unmeasured: a long-running server
// has tiered its hot code up long before (V8's optimizing compiler works on background threads;
// for Gantry, with far more code than the bare proxy and a database thread, that took ~35 µs of
// CPU per request of a 4-second cell measured right after start). --warmup 0: the cells only.
const warmupS = args.includes('--warmup') ? Number(args[args.indexOf('--warmup') + 1]) : 10;
const listArg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1]!.split(',') : null);
const only = listArg('--only');
const connsList = (listArg('--conns') ?? ['1', '50']).map(Number);
const wanted = (letter: string) => !only || only.includes(letter);

const request = JSON.stringify({ model: 'bench/mock', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 16 });

try {
  const mock = await start('mock.ts');
  const proxy = await start('proxy.ts', mock.url);
  const setup = (gantry: BenchGantry) => setupGantry(gantry, mock.url);
  const gantry = wanted('c') ? await start('gantry.ts') : null;
  if (gantry) await setup(gantry);
  // Optional: the replica configuration (PostgreSQL + Redis) as a fourth variant.
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const gantryPg = pgUrl && wanted('d') ? await start('gantry.ts', '--postgres') : null;
  if (gantryPg) await setup(gantryPg);
  await new Promise((r) => setTimeout(r, 1200));

  const json = { 'content-type': 'application/json' };
  const variants = [
    { name: 'a direct', url: mock.url, path: '/v1/chat/completions', headers: json, server: mock },
    { name: 'b bare proxy', url: proxy.url, path: '/v1/chat/completions', headers: json, server: proxy },
    ...(gantry ? [{ name: 'c gantry', url: gantry.url, path: '/openai/v1/chat/completions', headers: { ...json, authorization: `Bearer ${gantry.creds.apiKey}` }, server: gantry }] : []),
    ...(gantryPg ? [{ name: 'd gantry pg', url: gantryPg.url, path: '/openai/v1/chat/completions', headers: { ...json, authorization: `Bearer ${gantryPg.creds.apiKey}` }, server: gantryPg }] : []),
  ];
  // CPU time of the serving process per answered request, warm-up included on both sides.
  const cpuPerReq: Record<string, Record<number, { all: number; main: number }>> = {};
  const rssUnderLoad: Record<string, Record<number, number>> = {}; // the server's RSS at the end of each cell
  const results: Record<string, Record<number, LoadResult>> = {};
  const warmed: Record<string, number> = {}; // requests answered while warming each server up
  if (warmupS > 0) {
    for (const v of variants.filter((x) => wanted(x.name[0]!))) {
      warmed[v.name] = (await load(v.url, v.path, v.headers, request, 50, 0, warmupS * 1000)).totalRequests;
      process.stderr.write(`${v.name.padEnd(13)} warmed up: ${warmupS} s at 50 connections\n`);
    }
  }
  for (const conns of connsList) {
    for (const v of variants.filter((x) => wanted(x.name[0]!))) {
      const cpu0 = await v.server.cpuUs();
      const r = await load(v.url, v.path, v.headers, request, conns, 1000, seconds * 1000);
      const cpu1 = await v.server.cpuUs();
      results[v.name] ??= {};
      results[v.name]![conns] = r;
      const c = { all: (cpu1.cpuUs - cpu0.cpuUs) / r.totalRequests, main: (cpu1.mainUs - cpu0.mainUs) / r.totalRequests };
      cpuPerReq[v.name] ??= {};
      cpuPerReq[v.name]![conns] = c;
      rssUnderLoad[v.name] ??= {};
      rssUnderLoad[v.name]![conns] = cpu1.rssMb;
      process.stderr.write(`${v.name.padEnd(13)} ${String(conns).padStart(2)} conn: ${r.reqPerS.toFixed(0).padStart(6)} req/s  p50 ${r.p50Ms.toFixed(3)} ms  p99 ${r.p99Ms.toFixed(3)} ms  errors ${r.errors}  server CPU ${c.all.toFixed(0)} µs/req (main thread ${c.main.toFixed(0)})  RSS ${cpu1.rssMb} MB\n`);
    }
  }
  if (only || connsList.length !== 2) { // a partial run: its lines above are the result
    await Promise.all(children.map((c) => new Promise((r) => { c.once('exit', r); c.stdin?.end(); })));
    process.exit(0);
  }
  if (!gantry) throw new Error('unreachable');
  const usage = await usageOf(gantry);

  const a = results['a direct']!;
  const b = results['b bare proxy']!;
  const c = results['c gantry']!;
  const row = (name: string, r: Record<number, LoadResult>) => {
    const cells = [1, 50].flatMap((n) => [r[n]!.reqPerS.toFixed(0), r[n]!.p50Ms.toFixed(3), r[n]!.p99Ms.toFixed(3)]);
    return `| ${name} | ${cells.join(' | ')} |`;
  };
  const ratio = (x: number, y: number) => `${((x / y) * 100).toFixed(0)}%`;
  const table = [
    `| variant | req/s @1 | p50 ms @1 | p99 ms @1 | req/s @50 | p50 ms @50 | p99 ms @50 |`,
    `|---|---:|---:|---:|---:|---:|---:|`,
    row('(a) direct to mock', a), row('(b) bare Fastify + undici proxy', b), row('(c) Gantry, every check on (embedded PGlite)', c),
    ...(results['d gantry pg'] ? [row('(d) Gantry, every check on, PostgreSQL + Redis', results['d gantry pg'])] : []),
    '',
    `| ratio | @1 conn | @50 conns |`,
    `|---|---:|---:|`,
    `| (c) req/s vs (a) | ${ratio(c[1]!.reqPerS, a[1]!.reqPerS)} | ${ratio(c[50]!.reqPerS, a[50]!.reqPerS)} |`,
    `| (c) req/s vs (b) | ${ratio(c[1]!.reqPerS, b[1]!.reqPerS)} | ${ratio(c[50]!.reqPerS, b[50]!.reqPerS)} (target ≥ 70%) |`,
    `| (b) req/s vs (a) | ${ratio(b[1]!.reqPerS, a[1]!.reqPerS)} | ${ratio(b[50]!.reqPerS, a[50]!.reqPerS)} |`,
    `| (c) p50 added over (a) | ${(c[1]!.p50Ms - a[1]!.p50Ms).toFixed(3)} ms (target ≤ 0.3) | ${(c[50]!.p50Ms - a[50]!.p50Ms).toFixed(3)} ms |`,
    `| (c) p50 added over (b) | ${(c[1]!.p50Ms - b[1]!.p50Ms).toFixed(3)} ms | ${(c[50]!.p50Ms - b[50]!.p50Ms).toFixed(3)} ms |`,
    ...(results['d gantry pg'] ? ((d: Record<number, LoadResult>) => [
      `| (d) req/s vs (b) | ${ratio(d[1]!.reqPerS, b[1]!.reqPerS)} | ${ratio(d[50]!.reqPerS, b[50]!.reqPerS)} |`,
      `| (d) p50 added over (a) | ${(d[1]!.p50Ms - a[1]!.p50Ms).toFixed(3)} ms | ${(d[50]!.p50Ms - a[50]!.p50Ms).toFixed(3)} ms |`,
    ])(results['d gantry pg']) : []),
    '',
    `| server CPU per answered request, µs (whole process / main thread) | @1 conn | @50 conns |`,
    `|---|---:|---:|`,
    ...Object.entries(cpuPerReq).map(([name, r]) => `| (${name[0]}) ${name.slice(2)} | ${r[1]!.all.toFixed(0)} / ${r[1]!.main.toFixed(0)} | ${r[50]!.all.toFixed(0)} / ${r[50]!.main.toFixed(0)} |`),
    `| (c) vs (b), whole process | ${(cpuPerReq['c gantry']![1]!.all / cpuPerReq['b bare proxy']![1]!.all).toFixed(2)}× | ${(cpuPerReq['c gantry']![50]!.all / cpuPerReq['b bare proxy']![50]!.all).toFixed(2)}× |`,
    '',
    `| server RSS at the end of the cell, MB (under load; goal for Gantry ≤ 300) | @1 conn | @50 conns |`,
    `|---|---:|---:|`,
    ...Object.entries(rssUnderLoad).map(([name, r]) => `| (${name[0]}) ${name.slice(2)} | ${r[1]} | ${r[50]} |`),
  ].join('\n');
  const answered = c[1]!.totalRequests + c[50]!.totalRequests + (warmed['c gantry'] ?? 0);
  const summary = `${table}\n\nRun: ${new Date().toISOString()}, each server warmed up for ${warmupS} s at 50 connections, then ${seconds} s per cell after 1 s warm-up, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}. ` +
    `Gantry answered ${answered} model requests (warm-ups included) and recorded ${usage.events} usage events, charged in ${usage.ledgerCharges} ledger charges covering ${usage.chargedRequests} requests.`;
  const mismatch = usageMismatch(usage, answered);
  if (mismatch) process.stderr.write(`${mismatch}\n`);
  process.stdout.write(summary + '\n');
  if (args.includes('--write')) {
    const readme = here('../README.md');
    const begin = '<!-- gateway:results:begin -->';
    const end = '<!-- gateway:results:end -->';
    const text = existsSync(readme) ? readFileSync(readme, 'utf8') : '';
    if (!text.includes(begin)) throw new Error(`bench/README.md has no ${begin} marker`);
    writeFileSync(readme, text.slice(0, text.indexOf(begin) + begin.length) + '\n' + summary + '\n' + text.slice(text.indexOf(end)));
  }
} finally {
  for (const c of children) c.stdin?.end();
  setTimeout(() => { for (const c of children) c.kill('SIGKILL'); process.exit(0); }, 2000).unref();
}
