// What Linux's /proc says of a process and its threads: CPU time (utime + stime, in ticks of
// 10 ms: USER_HZ is 100 on every Linux this runs on) and resident memory. One reading for the
// benches and the tests that measure a server from outside.
import { readdirSync, readFileSync } from 'node:fs';

/** CPU ms in a /proc stat line, and the thread's or process's name. */
function parseStat(stat: string): { name: string; cpuMs: number } {
  // the name is in parentheses and may hold spaces: the fields are counted after its ')'
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpuMs: (Number(f[11]) + Number(f[12])) * 10 };
}

/** CPU ms process `pid` has used, all threads. */
export function processCpuMs(pid: number): number {
  return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuMs;
}

/** CPU ms of each thread of `pid` so far, with its id and name (MainThread, WorkerThread, V8Worker, …). */
export function threadsCpuMs(pid: number): Array<{ tid: string; name: string; cpuMs: number }> {
  const out: Array<{ tid: string; name: string; cpuMs: number }> = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.push({ tid, ...parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) });
    } catch { /* a thread that ended meanwhile */ }
  }
  return out;
}

/** CPU ms of every process on the machine whose name is one of `names`, summed by name. */
export function processesCpuMs(names: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const { name, cpuMs } = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (names.includes(name)) m.set(name, (m.get(name) ?? 0) + cpuMs);
    } catch { /* a process that ended meanwhile */ }
  }
  return m;
}

/** Resident memory of process `pid`, bytes. */
export function rssBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}
