// The benchmark's server processes (mock, proxy, Gantry): each in its own process, its first
// stdout line its {url, …}; `cpuUs()` asks it for its CPU time and RSS (cpu-report.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
/** Every process started, for the runner to end. */
export const children: ChildProcess[] = [];

export async function start(script: string, ...rest: string[]): Promise<any> {
  // BENCH_PROFILE=<dir> writes a CPU profile of the Gantry process there (for finding the gap).
  const flags = process.env.BENCH_PROFILE && script === 'gantry.ts' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  // BENCH_GANTRY_FLAGS: extra node flags for the Gantry process (e.g. GC tuning experiments);
  // BENCH_TRACE=1 shows what such a flag prints on stdout (else it is dropped).
  if (script === 'gantry.ts' && process.env.BENCH_GANTRY_FLAGS) flags.push(...process.env.BENCH_GANTRY_FLAGS.split(' ').filter(Boolean));
  const child = spawn(process.execPath, [...flags, here(script), ...rest], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env } });
  children.push(child);
  // The first line is the server's {url, …}; later lines answer "cpu" queries in order.
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buf = '';
  child.stdout!.on('data', (d) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      // a node flag's trace (BENCH_GANTRY_FLAGS="--trace-gc", "--trace-deopt") goes to stdout too: only JSON lines answer
      if (!line.startsWith('{')) {
        if (process.env.BENCH_TRACE) process.stderr.write(`${script}: ${line}\n`);
        continue;
      }
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const nextLine = () => new Promise<string>((r) => (lines.length ? r(lines.shift()!) : waiting.push(r)));
  const cpuUs = async (): Promise<{ cpuUs: number; mainUs: number; rssMb: number }> => {
    child.stdin!.write('cpu\n');
    return JSON.parse(await nextLine());
  };
  return new Promise((resolve, reject) => {
    nextLine().then((l) => resolve({ ...JSON.parse(l), cpuUs }), reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}
