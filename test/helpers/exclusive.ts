// A lock across the test processes of one run: tests that must not overlap take it. The
// console's terminal test in Chromium stalled for 30 s at a time (three CI runs, each while
// test/serverless-docker.engines.test.ts ran beside it: two engines making and removing containers,
// networks and netavark rules), and passed every time alone; until the cause is known they
// take turns. A lock whose holder died is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits until this process holds `name` (a directory in the temp dir); returns its release. */
export async function exclusive(name: string, limitMs = 600_000): Promise<() => void> {
  const dir = join(tmpdir(), `gantry-test-lock-${name}`);
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    } catch { /* being written or removed: look again */ }
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) rmSync(dir, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`the test lock ${name} was held longer than ${limitMs} ms (by pid ${holder})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
