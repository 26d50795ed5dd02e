// The operator token can be replaced without a restart: every app re-reads its hash at most
// every GANTRY_KEY_CACHE_TTL_MS (≤ 1 s). Rotation itself is a domain rule: only a token that
// exists is replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, openMigratedStore } from '../../test/helpers/app.ts';
import { call } from '../../test/helpers/http.ts';
import { ManualClock } from '../lib/clock.ts';
import { standaloneCtx } from './context.ts';
import type { AppError } from '../lib/errors.ts';
import { getSetting } from '../store/settings.ts';
import { OPERATOR_TOKEN_KEY, rotateOperatorToken } from './operator-token.ts';

/** Poll a condition (each check is a request) until it holds; fail after `limitMs`. */
async function waitFor(check: () => Promise<boolean>, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a rotated token replaces the old one: the old is refused, the new accepted', async () => {
  const h = await buildTestApp({ env: { GANTRY_KEY_CACHE_TTL_MS: '0' } });
  try {
    const token = await rotateOperatorToken(h.services.ctx);
    assert.match(token, /^gop_/);
    assert.notEqual(token, h.creds.adminToken);
    const old = await call(h.app, 'GET', '/admin/v1/teams', { token: h.creds.adminToken });
    assert.equal(old.status, 401);
    assert.equal(old.body.reason, 'UNAUTHORIZED');
    assert.equal((await call(h.app, 'GET', '/admin/v1/teams', { token })).status, 200);
    const again = await rotateOperatorToken(h.services.ctx);
    assert.equal((await call(h.app, 'GET', '/admin/v1/teams', { token })).status, 401, 'each rotation retires the token before it');
    assert.equal((await call(h.app, 'GET', '/admin/v1/teams', { token: again })).status, 200);
  } finally {
    await h.close();
  }
});

test('a running app takes a rotation (made elsewhere) within the key cache time', async () => {
  const h = await buildTestApp(); // GANTRY_KEY_CACHE_TTL_MS defaults to 1000
  try {
    assert.equal((await call(h.app, 'GET', '/admin/v1/teams', { token: h.creds.adminToken })).status, 200); // cached now
    const rotatedAt = Date.now();
    const token = await rotateOperatorToken(h.services.ctx); // as the CLI does: straight into the store
    await waitFor(async () => (await call(h.app, 'GET', '/admin/v1/teams', { token: h.creds.adminToken })).status === 401, 5_000);
    assert.equal((await call(h.app, 'GET', '/admin/v1/teams', { token })).status, 200);
    const tookMs = Date.now() - rotatedAt;
    assert.ok(tookMs < 2_000, `the old token was accepted for ${tookMs} ms after the rotation`);
  } finally {
    await h.close();
  }
});

test('a store that was never bootstrapped has no token to rotate, and none is created', async () => {
  const store = await openMigratedStore();
  try {
      const ctx = standaloneCtx(store.db, new ManualClock());
    await assert.rejects(rotateOperatorToken(ctx), (e: AppError) => {
      assert.equal(e.reason, 'NOT_FOUND');
      assert.equal(e.metadata.rule, 'bootstrapped');
      return true;
    });
    assert.equal(await getSetting(store.db, OPERATOR_TOKEN_KEY), undefined);
  } finally {
    await store.close();
  }
});
