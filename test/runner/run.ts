// Runs test files in worker processes (test/runner/worker.ts) and prints each file as it
// finishes, then a summary. Files are handed out one at a time, longest first by the times
// of earlier runs (node_modules/.cache/gantry/test-times.json), so that workers finish
// together; a file that outlives its timeout, or a worker that dies, fails that file and
// the run goes on in a new worker.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileResult, WorkerEvent } from './protocol.ts';
import { ROOT } from './tiers.ts';
import { loadTimes, orderByTime, saveTimes } from './times.ts';

export interface RunOptions {
  label: string;
  files: string[];
  isolation: 'none' | 'process';
  /** with isolation `none`: the files that still need a process of their own */
  ownProcess?: (file: string) => boolean;
  workers: number;
  /** a file that runs longer fails (its worker is killed) */
  fileTimeoutMs: number;
  /** print every file's output as it comes, not only a failed file's */
  verbose: boolean;
  out: (line: string) => void;
  /** order by, and record, the times of earlier runs (off: in the given order, nothing kept) */
  keepTimes?: boolean;
}

export interface RunSummary {
  label: string;
  files: number;
  results: FileResult[];
  wallSeconds: number;
  cpuSeconds: number;
  maxRssMb: number;
  warnings: string[];
}

const WORKER = join(ROOT, 'test', 'runner', 'worker.ts');
const REPORTER = pathToFileURL(join(ROOT, 'test', 'runner', 'reporter.ts')).href;
const COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'gantry', 'compile');
/** after its last file, how long a worker may take to exit before it is stopped */
const EXIT_GRACE_MS = 20_000;
const OUTPUT_TAIL_LINES = 200;
/**
 * A worker's young generation: tests make short-lived garbage by the gigabyte (requests,
 * answers, rows), and V8's default semi-space (16 MB here) scavenged test/fuzz.test.ts's for
 * ~8 s of its 95; 64 MB took 6 % off its CPU (bench/README.md, "Tests in tiers").
 */
const WORKER_FLAGS = ['--max-semi-space-size=64'];

interface Worker {
  child: ChildProcess;
  /** takes one file and exits (isolation `process`, or a file that needs its own process) */
  single: boolean;
  /** the file it was started for, handed over once it is ready */
  reserved?: string | undefined;
  file?: string;
  startedAt: number;
  timer?: NodeJS.Timeout;
  output: string[];
  ran: string[];
  ended: boolean;
}

export async function runFiles(opts: RunOptions): Promise<RunSummary> {
  const t0 = performance.now();
  const keep = opts.keepTimes ?? true;
  const times = keep ? loadTimes() : {};
  const queue = keep ? orderByTime(opts.files, times) : [...opts.files];
  const summary: RunSummary = { label: opts.label, files: opts.files.length, results: [], wallSeconds: 0, cpuSeconds: 0, maxRssMb: 0, warnings: [] };
  const width = String(opts.files.length).length;
  let live = 0;
  let finishAll!: () => void;
  const allDone = new Promise<void>((r) => { finishAll = r; });

  const report = (r: FileResult, seconds: number, w: Worker) => {
    summary.results.push(r);
    times[r.file] = seconds;
    const mark = r.failed ? '✖' : '✔';
    const counts = [`${r.passed} passed`, r.failed ? `${r.failed} failed` : '', r.skipped ? `${r.skipped} skipped` : ''].filter(Boolean).join(', ');
    const cpu = r.cpuSeconds !== undefined ? ` (CPU ${r.cpuSeconds.toFixed(1)} s)` : '';
    opts.out(`${String(summary.results.length).padStart(width)}/${opts.files.length} ${mark} ${r.file}  ${counts}  ${seconds.toFixed(1)} s${cpu}`);
    if (r.failed) {
      for (const f of r.failures) opts.out(indent(`✖ ${f.name}\n${f.detail.includes(f.message) ? f.detail : [f.message, f.detail].filter(Boolean).join('\n')}`, 4));
      const tail = w.output.join('').split('\n').slice(-OUTPUT_TAIL_LINES).join('\n').trim();
      if (tail && !opts.verbose) opts.out(indent(`output of ${r.file}:\n${tail}`, 4));
    }
    w.output = [];
  };

  const failFile = (w: Worker, message: string) => {
    const file = w.file!;
    report({ type: 'file', file, passed: 0, failed: 1, skipped: 0, skips: {}, failures: [{ name: '(the file itself)', message, detail: '' }] }, (performance.now() - w.startedAt) / 1000, w);
    w.file = undefined;
  };

  const singles = new Map(opts.files.map((f) => [f, opts.isolation === 'process' || (opts.ownProcess?.(f) ?? false)]));
  const single = (f: string) => singles.get(f) ?? true;
  const take = (w: Worker): string | undefined => {
    if (w.reserved) return w.reserved;
    if (w.single) return undefined;
    const i = queue.findIndex((f) => single(f) === w.single);
    return i < 0 ? undefined : queue.splice(i, 1)[0];
  };

  const handOut = (w: Worker) => {
    const next = take(w);
    w.reserved = undefined;
    if (!next) {
      w.child.stdin?.end(`${JSON.stringify({ done: true })}\n`);
      setTimeout(() => {
        if (w.child.exitCode === null && w.child.signalCode === null) {
          summary.warnings.push(`a worker was still running ${EXIT_GRACE_MS / 1000} s after its last file (handles left open by one of: ${w.ran.join(', ')}); stopped`);
          killGroup(w.child);
        }
      }, EXIT_GRACE_MS).unref();
      return;
    }
    w.file = next;
    w.ran.push(next);
    w.startedAt = performance.now();
    w.timer = setTimeout(() => {
      failFile(w, `timed out after ${opts.fileTimeoutMs / 1000} s (the runner stopped its worker)`);
      killGroup(w.child);
    }, opts.fileTimeoutMs);
    w.child.stdin?.write(`${JSON.stringify({ run: next })}\n`);
  };

  const onEvent = (w: Worker, ev: WorkerEvent) => {
    if (ev.type === 'ready') handOut(w);
    else if (ev.type === 'file') {
      if (ev.file !== w.file) return;
      clearTimeout(w.timer);
      report(ev, (performance.now() - w.startedAt) / 1000, w);
      w.file = undefined;
      handOut(w);
    } else if (ev.type === 'late') lateError(summary, w, ev.message, opts.out);
    else if (ev.type === 'end') {
      w.ended = true;
      summary.cpuSeconds += ev.cpuSeconds;
      summary.maxRssMb = Math.max(summary.maxRssMb, ev.maxRssMb);
    }
  };

  const start = () => {
    live++;
    const first = queue.shift()!;
    const child = spawn(process.execPath, [...WORKER_FLAGS, `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', WORKER], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      detached: true, // its own process group: a stopped worker takes the servers its tests started with it
      env: workerEnv(),
    });
    const w: Worker = { child, single: single(first), reserved: first, startedAt: 0, output: [], ran: [], ended: false };
    const keep = (chunk: Buffer) => {
      if (opts.verbose) process.stdout.write(chunk);
      else w.output.push(chunk.toString());
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    createInterface({ input: child.stdio[3] as Readable }).on('line', (line) => onEvent(w, JSON.parse(line) as WorkerEvent));
    child.on('close', (code, signal) => {
      clearTimeout(w.timer);
      if (w.file) failFile(w, `its worker exited (${signal ?? `code ${code}`}) before the file finished`);
      live--;
      if (queue.length && live < opts.workers) start();
      else if (live === 0) finishAll();
    });
  };

  const first = Math.min(opts.workers, queue.length);
  for (let i = 0; i < first; i++) start();
  if (first === 0) finishAll();
  await allDone;
  summary.wallSeconds = (performance.now() - t0) / 1000;
  if (keep) saveTimes(times);
  return summary;
}

/** Node says a test's late activity threw: the file it names (by base name) failed. */
function lateError(summary: RunSummary, w: Worker, message: string, out: (l: string) => void) {
  const named = w.ran.find((f) => message.includes(f.split('/').pop()!));
  const r = summary.results.find((x) => x.file === named);
  if (r) {
    r.failed++;
    r.failures.push({ name: '(after its tests ended)', message, detail: '' });
  } else summary.warnings.push(message);
  out(indent(`✖ ${named ?? 'a file of this worker'}: ${message}`, 4));
}

/**
 * The worker's environment: ours, with the compile cache, and without NODE_TEST_CONTEXT
 * (set when this runner itself runs under `node --test`: a worker that inherits it reports in
 * node:test's child protocol instead of through its reporter).
 */
function workerEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return { NODE_COMPILE_CACHE: COMPILE_CACHE, ...env };
}

function killGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

function indent(text: string, n: number): string {
  return text.split('\n').map((l) => ' '.repeat(n) + l).join('\n');
}
