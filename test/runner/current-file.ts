// What the worker and its reporter share in the worker's process: the way to the runner
// (file descriptor 3) and the moment a file's suite has finished.
import { readFileSync, writeSync } from 'node:fs';
import { EVENTS_FD, type WorkerEvent } from './protocol.ts';

export function send(ev: WorkerEvent): void {
  writeSync(EVENTS_FD, `${JSON.stringify(ev)}\n`);
}

const waiting = new Map<string, () => void>();
const cpuAtStart = new Map<string, number>();

/** Resolves when the reporter has seen the suite of `file` end (its after hooks included). */
export function fileFinished(file: string): Promise<void> {
  cpuAtStart.set(file, cpuSeconds());
  return new Promise((resolve) => waiting.set(file, resolve));
}

/** CPU seconds since the worker took `file` (its import included). */
export function cpuSince(file: string): number {
  return cpuSeconds() - (cpuAtStart.get(file) ?? cpuSeconds());
}

export function markFinished(file: string): void {
  waiting.get(file)?.();
  waiting.delete(file);
}

/** CPU seconds of this process (every thread) and the children it waited for: Linux's /proc, else this process alone. */
export function cpuSeconds(): number {
  try {
    // utime, stime, cutime, cstime, in clock ticks (100 a second on Linux)
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].reduce((s, i) => s + Number(f[i]), 0) / 100;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}
