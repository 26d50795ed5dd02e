// Runs in a process of its own (test/runner): it asserts when undici is loaded, and other files would have loaded them.
// The HTTP upstreams' pools are made on first use (undici loads then, lib/undici.ts): the
// requests that arrive together while it loads share one pool, and a pool never used is
// closed without loading anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OriginPool } from './http.ts';
import { undiciLoaded } from '../../lib/undici.ts';

const opts = { connectTimeoutMs: 1000, timeoutMs: 1000 };

test('an origin pool is made once, on its first request, and closes whether made or not', async () => {
  await new OriginPool('http://127.0.0.1:9', opts).close();
  assert.equal(undiciLoaded(), undefined, 'closing an unused pool loaded undici');
  const pool = new OriginPool('http://127.0.0.1:9', opts);
  const [a, b] = await Promise.all([pool.get(), pool.get()]);
  assert.ok(a === b && undiciLoaded(), 'one pool for the requests that waited for it');
  assert.equal(pool.get(), a, 'once made, the pool is handed over without an await');
  await pool.close();
  assert.ok(a.destroyed || a.closed);
});
