// TtlCache: fresh values come from memory, concurrent misses share one load, and an
// invalidation wins over a load that was already under way (it read the old state).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TtlCache } from './ttl-cache.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

test('a fresh value is returned synchronously; concurrent misses share one load', async () => {
  const c = new TtlCache<string>(60_000);
  let loads = 0;
  const d = deferred<string>();
  const a = c.get('k', () => { loads++; return d.promise; });
  const b = c.get('k', () => { loads++; return d.promise; });
  d.resolve('v');
  assert.deepEqual(await Promise.all([a, b]), ['v', 'v']);
  assert.equal(loads, 1);
  assert.equal(c.get('k', async () => 'other'), 'v', 'cached: no promise');
});

for (const how of ['delete', 'clear'] as const) {
  test(`${how}() during a load: the load's (old) value is not cached, the next get loads again`, async () => {
    const c = new TtlCache<string>(60_000);
    const old = deferred<string>();
    const first = c.get('k', () => old.promise);
    if (how === 'delete') c.delete('k');
    else c.clear();
    // a caller after the invalidation does not join the stale load
    const second = c.get('k', async () => 'new');
    old.resolve('old');
    assert.equal(await first, 'old', 'the caller that started it still gets its answer');
    assert.equal(await second, 'new');
    assert.equal(c.get('k', async () => 'unused'), 'new');
  });
}
