// What the main thread of a start spends on its own part, apart from the database's start
// (which a whole start, start-memory.ts, measures too and which varies more on this shared
// machine): loading the store's and the app's modules (as serve does, after
// lib/drizzle-resolve.ts), then building the app (`buildApp`: services, routes, the route
// schemas compiled at once) over an embedded store opened, migrated and seeded first. Each
// run is a fresh process, as a start is (cold JIT; Node's compile cache on, as the server
// turns it on). Reported: the load's wall time, buildApp's wall time and the main thread's
// CPU during it, and how many route schemas Fastify asked for and how many were compiled.
// Usage: node bench/start-app.ts [--runs 5] [--src <other checkout>/src]
// With --src, runs of the two sources alternate (this checkout's "head", the other "base").
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

interface Sample { importMs: number; buildMs: number; cpuMs: number; asked?: number; distinct?: number; pending?: number }

async function child(src: string): Promise<void> {
  const at = (p: string) => pathToFileURL(join(src, p)).href;
  await import(at('lib/drizzle-resolve.ts'));
  const i0 = performance.now();
  const [{ openStore, migrateStore }, { buildApp }, { loadConfig }, { systemClock }, { bootstrap }, { standaloneCtx }] = await Promise.all([
    import(at('store/db.ts')), import(at('app.ts')), import(at('config.ts')), import(at('lib/clock.ts')),
    import(at('domain/bootstrap.ts')), import(at('domain/context.ts')),
  ]);
  const importMs = performance.now() - i0;
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-start-app-'));
  try {
    const store = await openStore({ dataDir });
    await migrateStore(store);
    await bootstrap(standaloneCtx(store.db, systemClock), { seedVoucherUnits: 0n }); // a first start's
    const config = loadConfig({ LOG_LEVEL: 'silent', GANTRY_DATA_DIR: dataDir });
    const cpu0 = process.threadCpuUsage();
    const t0 = performance.now();
    const built = await buildApp({ config, store, clock: systemClock, logger: false, runBackground: false });
    const buildMs = performance.now() - t0;
    const cpu = process.threadCpuUsage(cpu0);
    const s = built.schemas as { asked?: number; distinct?: number; pending: number };
    const out: Sample = { importMs, buildMs, cpuMs: (cpu.user + cpu.system) / 1000, asked: s.asked, distinct: s.distinct, pending: s.pending };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    await built.app.close();
    await store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function run(src: string): Promise<Sample> {
  const me = fileURLToPath(import.meta.url);
  const cache = fileURLToPath(new URL('../node_modules/.cache/gantry/compile/', import.meta.url));
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [me, '--child', src], { env: { ...process.env, NODE_COMPILE_CACHE: cache }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => { out += d; });
    c.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (argv[0] === '--child') {
  await child(argv[1]!);
} else {
  const runs = Number(opt('--runs') ?? 5);
  const sources: Array<[string, string]> = [['head', fileURLToPath(new URL('../src', import.meta.url))]];
  const base = opt('--src');
  if (base) sources.push(['base', base]);
  const samples = new Map<string, Sample[]>(sources.map(([n]) => [n, []]));
  for (let i = 0; i < runs; i++) for (const [name, src] of sources) samples.get(name)!.push(await run(src));
  for (const [name, xs] of samples) {
    const last = xs.at(-1)!;
    console.log(`${name}: loading the modules ${median(xs.map((x) => x.importMs)).toFixed(0)} ms, buildApp ${median(xs.map((x) => x.buildMs)).toFixed(0)} ms, main-thread CPU ${median(xs.map((x) => x.cpuMs)).toFixed(0)} ms`
      + ` (medians of ${xs.length}; each: ${xs.map((x) => x.cpuMs.toFixed(0)).join(' / ')} ms CPU)`
      + (last.asked === undefined ? '' : `; schemas asked ${last.asked}, distinct ${last.distinct}, compiled at the start ${last.distinct! - last.pending!}`)
      + (last.asked === undefined ? `; schemas pending after the start ${last.pending}` : ''));
  }
}
