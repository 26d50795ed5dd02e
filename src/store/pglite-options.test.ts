// The embedded database starts with the configured shared_buffers (16 MB unless
// GANTRY_PGLITE_SHARED_BUFFERS says otherwise), on the worker thread and on the calling one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { openStore } from './db.ts';
import { loadConfig } from '../config.ts';
import { pgliteTemplate } from '../../test/helpers/app.ts';

async function sharedBuffers(opts: { pgliteThread: boolean; sharedBuffers?: string }): Promise<string> {
  // the option is the server's, at start: a store from a dump (the tests' template: no initdb) takes it as an initdb'd one does
  const store = await openStore({ ...opts, loadDataDir: await pgliteTemplate() });
  try {
    const r = await store.db.execute(sql`show shared_buffers`) as unknown as { rows: Array<{ shared_buffers: string }> };
    return r.rows[0]!.shared_buffers;
  } finally {
    await store.close();
  }
}

test('PGlite starts with the configured shared_buffers', async () => {
  assert.equal(await sharedBuffers({ pgliteThread: true }), '16MB');
  assert.equal(await sharedBuffers({ pgliteThread: false, sharedBuffers: '32MB' }), '32MB');
});

test('GANTRY_PGLITE_SHARED_BUFFERS is validated', () => {
  assert.equal(loadConfig({}).pgliteSharedBuffers, '16MB');
  assert.equal(loadConfig({ GANTRY_PGLITE_SHARED_BUFFERS: '64MB' }).pgliteSharedBuffers, '64MB');
  assert.throws(() => loadConfig({ GANTRY_PGLITE_SHARED_BUFFERS: '64 parsecs' }), /GANTRY_PGLITE_SHARED_BUFFERS must be a size/);
});
