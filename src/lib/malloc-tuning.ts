// glibc's allocator and a long-running `gantry serve`. V8's optimizing compiler, tiering up
// PGlite's WebAssembly (PostgreSQL) at start, allocates ~580 MB of short-lived compiler memory
// in 8–32 KB pieces on its background threads. glibc serves those from per-thread arenas and,
// once they are freed, keeps the arenas: measured, ~100 MB of an idle server's RSS that no
// one uses and malloc_trim does not give back. With MALLOC_MMAP_THRESHOLD_=32768, pieces of
// 32 KB and more are mapped one by one and returned to the system when freed: idle RSS after
// a restart 362 → 249 MB; under load, with the database thread's young generation capped
// too (pglite-remote.ts), 706–772 → 498–571 MB; CPU per request within noise
// (bench/README.md, "Memory"). glibc reads the variable only when a process starts, so the
// server sets it by re-executing itself once, before it loads anything: same pid, arguments
// and stdio, ~20 ms. A value the operator set (any value) is left alone; other libcs (musl)
// ignore the variable, and so does everything but Linux here.
import { execArgv } from 'node:process';

export const MALLOC_MMAP_THRESHOLD = '32768';
export const MALLOC_VARIABLE = 'MALLOC_MMAP_THRESHOLD_';

/** Whether this start should re-execute itself with the threshold set. */
export function wantsMallocReexec(command: string, env: NodeJS.ProcessEnv, platform: string, flags: readonly string[]): boolean {
  return command === 'serve' // the long-running command; admin and migrate end in seconds
    && platform === 'linux'
    && env[MALLOC_VARIABLE] === undefined
    // a debugger or inspector attached to this image would lose it
    && !flags.some((f) => f.startsWith('--inspect') || f.startsWith('--debug'));
}

/** Replaces this process with itself plus the threshold when wantsMallocReexec; otherwise returns. */
export function reexecWithMallocTuning(command: string): void {
  if (!wantsMallocReexec(command, process.env, process.platform, execArgv)) return;
  try {
    process.execve?.(process.execPath, [process.execPath, ...execArgv, ...process.argv.slice(1)], { ...process.env, [MALLOC_VARIABLE]: MALLOC_MMAP_THRESHOLD });
  } catch {
    // execve refused (a sandbox, an exotic runtime): serve as we are, with glibc's defaults
  }
}
