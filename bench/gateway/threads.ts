// Where a Gantry process spends its CPU under load, thread by thread: the main thread (HTTP,
// the gateway), the embedded database's thread (WorkerThread: storing usage), V8's background
// threads (V8Worker: garbage collection, the optimizing compiler), in µs per answered request,
// and the process's RSS at the end (Linux: /proc/<pid>/task/*/stat, 10 ms ticks).
// With --postgres (BENCH_DATABASE_URL and BENCH_REDIS_URL set: the replica setup, run.ts's
// (d)) it also counts the CPU of every postgres and redis-server process on the machine over
// the same window, so run it on a machine otherwise quiet.
// Usage: node bench/gateway/threads.ts [--postgres] [--conns 50] [--seconds 5] [--warmup 10]
// (BENCH_GANTRY_FLAGS passes node flags to the Gantry process, as for run.ts.)
import { load } from './load.ts';
import { setupGantry } from './setup.ts';
import { children, start } from './servers.ts';
import { processesCpuMs, rssBytes, threadsCpuMs } from '../proc.ts';

const args = process.argv.slice(2);
const num = (name: string, def: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : def);
const conns = num('--conns', 50);
const seconds = num('--seconds', 5);
const warmupS = num('--warmup', 10);
const request = JSON.stringify({ model: 'bench/mock', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 16 });

/** CPU µs of each thread of `pid`, by "<tid> <name>". */
function threadCpu(pid: number): Map<string, number> {
  return new Map(threadsCpuMs(pid).map((t) => [`${t.tid} ${t.name}`, t.cpuMs * 1000]));
}

const postgres = args.includes('--postgres');
if (postgres && (!process.env.BENCH_DATABASE_URL || !process.env.BENCH_REDIS_URL)) throw new Error('--postgres needs BENCH_DATABASE_URL and BENCH_REDIS_URL');
const services = postgres ? ['postgres', 'redis-server'] : [];

try {
  const mock = await start('mock.ts');
  const g = await start('gantry.ts', ...(postgres ? ['--postgres'] : []));
  await setupGantry(g, mock.url);
  const pid = children.at(-1)!.pid!;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${g.creds.apiKey}` };
  await load(g.url, '/openai/v1/chat/completions', headers, request, conns, 500, warmupS * 1000);
  const before = threadCpu(pid);
  const servicesBefore = processesCpuMs(services);
  const r = await load(g.url, '/openai/v1/chat/completions', headers, request, conns, 0, seconds * 1000);
  const after = threadCpu(pid);
  const servicesAfter = processesCpuMs(services);
  const rssMb = rssBytes(pid) / 2 ** 20;
  console.log(`${conns} connections, ${seconds} s after ${warmupS} s of warm-up: ${r.reqPerS.toFixed(0)} req/s, ${r.totalRequests} requests, RSS ${rssMb.toFixed(0)} MB`);
  const byName = new Map<string, number>();
  for (const [k, v] of after) {
    const name = k.slice(k.indexOf(' ') + 1);
    byName.set(name, (byName.get(name) ?? 0) + (v - (before.get(k) ?? 0)) / r.totalRequests);
  }
  let total = 0;
  for (const [name, us] of [...byName].filter(([, us]) => us >= 0.5).sort((x, y) => y[1] - x[1])) {
    total += us;
    console.log(`${us.toFixed(1).padStart(7)} µs/request  ${name}`);
  }
  console.log(`${total.toFixed(1).padStart(7)} µs/request  the whole process`);
  for (const name of services) {
    const us = (((servicesAfter.get(name) ?? 0) - (servicesBefore.get(name) ?? 0)) * 1000) / r.totalRequests;
    console.log(`${us.toFixed(1).padStart(7)} µs/request  every ${name} process`);
  }
} finally {
  for (const c of children) c.stdin?.end();
  setTimeout(() => { for (const c of children) c.kill('SIGKILL'); process.exit(0); }, 2000).unref();
}
