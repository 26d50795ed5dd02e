// What the docker driver's disk watchdog costs (issue 40, item 7): one enforceLimits() is one
// `GET /system/df` of the engine, which walks every container's writable layer and every
// volume; its time grows with the files there. Two running containers of Gantry's, each with
// --files/2 empty files in its root filesystem, on an engine of the bench's own
// (test/helpers/engines.ts: private socket, busybox-static test image, removed at the end);
// --runs walks, each timed (the rest the driver takes after a walk is skipped: a new driver
// each time). Needs root (the engines do).
//
// Usage: node bench/docker-disk-walk.ts [--engine podman|dockerd] [--files 100000] [--runs 5]
import { cpus } from 'node:os';
import { baseSpec } from '../src/drivers/contract.ts';
import { DockerDriver } from '../src/drivers/docker/driver.ts';
import { type EngineKind, execIn, startEngine } from '../test/helpers/engines.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const kind = opt('--engine', 'podman') as EngineKind;
if (kind !== 'podman' && kind !== 'dockerd') throw new Error(`--engine podman|dockerd, got ${kind}`);
const files = Number(opt('--files', '100000'));
const runs = Number(opt('--runs', '5'));

const engine = await startEngine(kind);
const settings = { host: engine.host, network: 'gantry-bench', publishHost: '127.0.0.1' };
const driver = new DockerDriver(settings);
try {
  const ids = ['ins_walk1', 'ins_walk2'];
  for (const id of ids) await driver.create({ ...baseSpec(id, engine.image), memoryGb: 0.5, rootfsGb: 50, command: 'sleep 3600' });
  for (;;) {
    const phases = await Promise.all(ids.map((id) => driver.describe(id)));
    if (phases.every((o) => o.phase === 'running')) break;
    if (phases.some((o) => o.phase === 'failed')) throw new Error(JSON.stringify(phases));
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const id of ids) {
    const made = await execIn(engine, id, ['sh', '-c', `mkdir /many && cd /many && seq 1 ${Math.ceil(files / 2)} | xargs touch && ls | wc -l`]);
    if (made.code !== 0) throw new Error(made.output);
  }
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const d = new DockerDriver(settings);
    const t0 = performance.now();
    await d.enforceLimits();
    ms.push(Math.round(performance.now() - t0));
    await d.close();
  }
  ms.sort((a, b) => a - b);
  console.log(`${kind}, ${files} files in 2 containers, ${cpus().length} CPUs: one walk ${ms.join(', ')} ms (median ${ms[Math.floor(ms.length / 2)]} ms)`);
} finally {
  await driver.delete('ins_walk1');
  await driver.delete('ins_walk2');
  await driver.close();
  await engine.stop();
}
