// How long each test file took in earlier runs on this machine, kept beside the other
// caches (node_modules/.cache/gantry/, never committed): the runner hands out the longest
// first, so that no worker is left with a long file at the end while the others wait. A
// fresh clone has no such cache: its first run orders by seed-times.json, committed (times
// of one run on a 2-core machine; stale or missing entries only order a first run less well;
// to refresh it, copy node_modules/.cache/gantry/test-times.json over it).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './tiers.ts';

const FILE = join(ROOT, 'node_modules', '.cache', 'gantry', 'test-times.json');

const SEED = join(ROOT, 'test', 'runner', 'seed-times.json');

function read(file: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** This machine's times over the committed seed's */
export function loadTimes(): Record<string, number> {
  return { ...read(SEED), ...read(FILE) };
}

export function saveTimes(times: Record<string, number>): void {
  try {
    mkdirSync(join(FILE, '..'), { recursive: true });
    const tmp = `${FILE}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(times, null, 1));
    renameSync(tmp, FILE);
  } catch {
    // a cache: a run that cannot write it only orders the next one less well
  }
}

/** Longest first; a file never timed goes first (it may be long, and it will be timed). */
export function orderByTime(files: string[], times: Record<string, number>): string[] {
  const t = (f: string) => times[f] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => t(b) - t(a) || a.localeCompare(b));
}
