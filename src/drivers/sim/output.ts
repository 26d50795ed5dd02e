// What a simulated workload writes while it runs, as a function of its run and the time:
// a start banner, its command, the ports it listens on, a heartbeat at a slow rate (at most
// MAX_HEARTBEATS a run, so an instance left idle does not fill the database), and how the run
// ended. Deterministic: the same run read at the same time gives the same lines.
import { rng } from '../../lib/prng.ts';
import type { WorkloadLogLine, WorkloadSpec } from '../types.ts';

/** simulated time between heartbeats (divided by GANTRY_SIM_TIME_SCALE) */
export const HEARTBEAT_MS = 30_000;
export const MAX_HEARTBEATS = 100;

export interface SimRun {
  spec: WorkloadSpec;
  startedAtMs: number;
  endedAtMs?: number | undefined;
  /** what the workload wrote last (a crash's message, a shutdown) */
  endLine?: string | undefined;
}

/** A plausible GPU utilization, the same for the same id and heartbeat (the one PRNG, seeded by both). */
function utilization(id: string, n: number): number {
  let seed = n;
  for (const ch of id) seed = (Math.imul(seed, 31) + ch.charCodeAt(0)) >>> 0;
  return 20 + Math.floor(rng(seed)() * 75);
}

/** The lines of `run` written up to `untilMs`, oldest first; `heartbeatMs` is the scaled interval. */
export function simRunLines(run: SimRun, untilMs: number, heartbeatMs: number): WorkloadLogLine[] {
  const s = run.spec;
  const t0 = run.startedAtMs;
  const end = Math.min(untilMs, run.endedAtMs ?? Infinity);
  const cmd = [s.entrypoint, s.command].filter(Boolean).join(' ');
  const lines: WorkloadLogLine[] = [
    { atMs: t0, line: `[sim] container ${s.id} started from ${s.image} (${s.gpuNum} GPU, ${s.cpuNum} CPU, ${s.memoryGb} GB memory)` },
    { atMs: t0 + 1, line: cmd ? `$ ${cmd}` : '$ (the image\'s default command)' },
    ...(s.ports.length ? s.ports.map((p, i) => ({ atMs: t0 + 2 + i, line: `listening on 0.0.0.0:${p.port} (${p.type})` })) : [{ atMs: t0 + 2, line: 'no ports exposed' }]),
  ];
  const step = Math.max(heartbeatMs, s.ports.length + 3); // the first one after the banner
  for (let n = 1; n <= MAX_HEARTBEATS; n++) {
    const at = t0 + n * step;
    if (at > end) break;
    lines.push({ atMs: at, line: `heartbeat ${n}: up ${n * (HEARTBEAT_MS / 1000)} s, GPU utilization ${utilization(s.id, n)}%` });
    if (n === MAX_HEARTBEATS) lines.push({ atMs: at + 1, line: `[sim] no more heartbeats this run (at most ${MAX_HEARTBEATS})` });
  }
  const out = lines.filter((l) => l.atMs <= end);
  if (run.endedAtMs !== undefined && run.endedAtMs <= untilMs && run.endLine) {
    out.push({ atMs: Math.max(run.endedAtMs, (out[out.length - 1]?.atMs ?? t0) + 1), line: run.endLine });
  }
  return out;
}
