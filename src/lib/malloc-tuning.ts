// Memory of a long-running `gantry serve`, and its start's CPU: glibc's allocator, V8's heap
// sizing and V8's WebAssembly tiering, all of which can only be set when a process starts, so
// the server sets them by re-executing itself once, before it loads anything: same pid,
// arguments and stdio, ~20 ms. What the operator set (an environment variable of any value, a
// node flag of the same name on the command line or in NODE_OPTIONS) is left alone; other
// libcs (musl) ignore the variable, and only Linux re-executes.
//
// glibc: V8's optimizing compiler, tiering up PGlite's WebAssembly (PostgreSQL) at start,
// allocates ~580 MB of short-lived compiler memory in 8–32 KB pieces on its background threads.
// glibc serves those from per-thread arenas and, once they are freed, keeps the arenas:
// measured, ~100 MB of an idle server's RSS that no one uses and malloc_trim does not give back.
// With MALLOC_MMAP_THRESHOLD_=32768, pieces of 32 KB and more are mapped one by one and
// returned to the system when freed: idle RSS after a restart 362 → 249 MB; under load, with
// the database thread's young generation capped too (pglite-remote.ts), 706–772 → 498–571 MB
// (bench/README.md, "Memory").
//
// V8 (issue 17, RSS under load ≤ 300 MB): under load the main thread's young generation grew to
// its default ceiling (two 64 MB semi-spaces, all resident), and the old generation grew to
// about four times what it held live before V8 collected it. A 16 MB semi-space and a heap
// growing factor of 1.5: (c) at 50 connections 485–575 → 368–388 MB, CPU per request within
// the runs' noise (bench/README.md, "2026-11-26, later: V8's heap sized for a server"). Then an
// 8 MB semi-space and a factor of 1.3: after a full rate window 365–367 → 331–340 MB, and CPU
// per request no higher (lower in every pair; bench/README.md, "issue 17, before and after").
// The semi-space flag sizes every thread's young generation, the database thread's too: its
// Worker resourceLimits do not override a flag. 4 MB costs CPU (V8's threads, ~+12 µs a request).
//
// V8's WebAssembly tiering (the start's CPU): PGlite's PostgreSQL runs as WebAssembly, first
// compiled by the baseline compiler, and a function that has run ~13 MB worth of code (V8's
// `--wasm-tiering-budget`) is compiled again by the optimizing compiler on V8's background
// threads. A start runs a great deal of PostgreSQL once (its own start, the migrations' checks,
// a first start's seeding): measured, the background threads spent 5–7 s of CPU during a
// first start, more than the main and database threads together, on a 2-core machine. Ten
// times the budget: ~3.3–4 s, the first start ~1 s sooner, and the code a request runs is
// still optimized within the first seconds of load (CPU per request after a 10 s warm-up
// unchanged; bench/README.md, "the start's CPU").
import { execArgv } from 'node:process';

export const MALLOC_MMAP_THRESHOLD = '32768';
export const MALLOC_VARIABLE = 'MALLOC_MMAP_THRESHOLD_';
/** Node (V8) flags the server runs with, unless the operator gave a value of their own. */
export const V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=30', '--wasm-tiering-budget=130000000'] as const;

const flagName = (f: string) => f.split('=')[0]!.replace(/_/g, '-');

/** Our V8 flags whose names the operator did not already give (command line or NODE_OPTIONS). */
export function missingV8Flags(flags: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set([...flags, ...(nodeOptions ?? '').split(/\s+/)].filter((f) => f.startsWith('--')).map(flagName));
  return V8_FLAGS.filter((f) => !given.has(flagName(f)));
}

/** Whether this start should re-execute itself to set the allocator's threshold or the V8 flags. */
export function wantsMallocReexec(command: string, env: NodeJS.ProcessEnv, platform: string, flags: readonly string[]): boolean {
  return command === 'serve' // the long-running command; admin and migrate end in seconds
    && platform === 'linux'
    // a debugger or inspector attached to this image would lose it
    && !flags.some((f) => f.startsWith('--inspect') || f.startsWith('--debug'))
    // once only: a re-executed server has both (the operator's or ours)
    && (env[MALLOC_VARIABLE] === undefined || missingV8Flags(flags, env.NODE_OPTIONS).length > 0);
}

/**
 * Replaces this process with itself plus the threshold and flags when wantsMallocReexec;
 * otherwise returns. `env`: more for the new image's environment (compile-cache.ts's).
 */
export function reexecWithMallocTuning(command: string, env: Record<string, string> = {}): void {
  if (!wantsMallocReexec(command, process.env, process.platform, execArgv)) return;
  try {
    process.execve?.(process.execPath, [process.execPath, ...execArgv, ...missingV8Flags(execArgv, process.env.NODE_OPTIONS), ...process.argv.slice(1)],
      { ...process.env, ...env, [MALLOC_VARIABLE]: process.env[MALLOC_VARIABLE] ?? MALLOC_MMAP_THRESHOLD });
  } catch {
    // execve refused (a sandbox, an exotic runtime): serve as we are, with the defaults
  }
}
