// The pixel pool: at most `size` pieces run at once, the others wait their turn; a piece whose
// JavaScript outgrows the worker's V8 limits (or that ends its worker) fails alone and the
// pool goes on with a new worker; idle workers end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PIXEL_POOL, PixelPool } from './pixel-pool.ts';
import { until } from '../../../test/helpers/wait.ts';

const SCRIPT = new URL('../../../test/helpers/pixel-test-worker.ts', import.meta.url);

test('at most `size` pieces run at once; the others wait and all finish', async () => {
  const pool = new PixelPool({ ...PIXEL_POOL, script: SCRIPT });
  try {
    const runs = await Promise.all(Array.from({ length: 6 }, () => pool.run('hold', [150])));
    const spans = runs.map((r) => [r.width, r.height] as const);
    for (const [start] of spans) {
      const running = spans.filter(([s, e]) => s <= start && start < e).length;
      assert.ok(running <= PIXEL_POOL.size, `${running} pieces ran at once`);
    }
    assert.equal(pool.stats().workers, PIXEL_POOL.size);
    assert.equal(pool.stats().jobs, 6);
  } finally {
    await pool.close();
  }
});

test('a piece that outgrows the V8 limits, or ends its worker, fails alone; the pool goes on', async () => {
  const pool = new PixelPool({ ...PIXEL_POOL, resourceLimits: { ...PIXEL_POOL.resourceLimits, maxOldGenerationSizeMb: 32 }, script: SCRIPT });
  try {
    const [hog, exit, after] = await Promise.allSettled([pool.run('hog', []), pool.run('exit', []), pool.run('hold', [1])]);
    assert.equal(hog.status, 'rejected');
    assert.match(String((hog as PromiseRejectedResult).reason), /hog ran out of the pixel worker's memory/);
    assert.equal(exit.status, 'rejected');
    assert.match(String((exit as PromiseRejectedResult).reason), /the pixel worker running exit died: the pixel worker exited \(3\)/);
    assert.equal(after.status, 'fulfilled');
    assert.equal((await pool.run('hold', [1])).data.length, 4);
  } finally {
    await pool.close();
  }
});

test('idle workers end after idleMs', async () => {
  const pool = new PixelPool({ ...PIXEL_POOL, idleMs: 50, script: SCRIPT });
  try {
    await Promise.all([pool.run('hold', [1]), pool.run('hold', [1])]);
    await until('the idle workers ended', () => pool.stats().workers === 0, { limitMs: 10_000 });
  } finally {
    await pool.close();
  }
});
