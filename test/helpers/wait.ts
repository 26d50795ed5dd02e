// Waiting for what a test is not told about, by looking: `until` checks a condition (a
// request, a query, what a process wrote) until it holds, and fails saying what never
// happened. The pause between two looks is no assertion: nothing is asserted after a sleep.
import assert from 'node:assert/strict';

export async function until(what: string, check: () => boolean | Promise<boolean>, opts: { limitMs?: number; everyMs?: number } = {}): Promise<void> {
  const limitMs = opts.limitMs ?? 30_000;
  const giveUpAt = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) assert.fail(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 20));
  }
}
