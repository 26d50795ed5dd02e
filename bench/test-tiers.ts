// The fast tier's cost, side by side in one run (bench/README.md, "Tests in tiers"):
//   (a) as the suite ran before issue 41: a process per file (Node's own runner,
//       `node --test --test-concurrency=<cores>`), each app on a new database thread and
//       PGlite loaded from the template's dump (GANTRY_TEST_STORE_POOL=off);
//   (b) `npm test`: the runner's shared workers and the warm stores.
// Each line: wall, CPU (user + system of the command and every process it waited for) and
// the largest process's peak memory, from /usr/bin/time.
//   node bench/test-tiers.ts            both, (a) first
//   node bench/test-tiers.ts --only b   one of them
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { filesOf, ROOT } from '../test/runner/tiers.ts';

const { values } = parseArgs({ options: { only: { type: 'string' } } });
const node = process.execPath;
const fast = filesOf('fast');

interface Run { label: string; cmd: string[]; env?: Record<string, string> }

const runs: Run[] = [
  { label: '(a) a process per file, a new store per app', cmd: [node, '--test', `--test-concurrency=${availableParallelism()}`, ...fast], env: { GANTRY_TEST_STORE_POOL: 'off' } },
  { label: '(b) npm test: shared workers, warm stores', cmd: [node, join(ROOT, 'test', 'runner', 'cli.ts'), 'fast'] },
];

function measure(r: Run): { wall: number; cpu: number; rssMb: number; ok: boolean } {
  const res = spawnSync('/usr/bin/time', ['-f', 'BENCH %e %U %S %M', ...r.cmd], { cwd: ROOT, env: { ...process.env, ...r.env }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const m = /BENCH ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(res.stderr ?? '');
  if (!m) throw new Error(`${r.label}: no timing (is /usr/bin/time installed?)\n${res.stderr?.slice(-2000)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), rssMb: Math.round(Number(m[4]) / 1024), ok: res.status === 0 };
}

console.log(`fast tier: ${fast.length} files, ${availableParallelism()} cores`);
const results: { label: string; wall: number; cpu: number; rssMb: number; ok: boolean }[] = [];
for (const r of runs) {
  if (values.only && !r.label.startsWith(`(${values.only})`)) continue;
  const m = measure(r);
  results.push({ label: r.label, ...m });
  console.log(`${r.label}: wall ${m.wall.toFixed(0)} s, CPU ${m.cpu.toFixed(0)} s, largest process ${m.rssMb} MB${m.ok ? '' : ' (some tests failed)'}`);
}
if (results.length === 2) {
  const [a, b] = results as [typeof results[0], typeof results[0]];
  console.log(`(b) / (a): wall ${(b.wall / a.wall).toFixed(2)}, CPU ${(b.cpu / a.cpu).toFixed(2)}`);
}
