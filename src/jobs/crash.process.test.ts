// kill -9 in the middle of a job: the job is not lost and its effect happens once. A real
// server process (test/helpers/job-server.ts: Gantry with one more job type whose handler
// waits for a file, then commits one effect with its completion) is killed while the
// handler runs. Embedded store: the restarted process takes the job over at start.
// PostgreSQL: a second replica, running all along, takes it over when the lease runs out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, type Server } from '../../test/helpers/server.ts';
import { openTestStore } from '../../test/helpers/app.ts';
import { openStore, type Store } from '../store/db.ts';
import { findJob } from '../store/jobs.ts';
import { getSetting } from '../store/settings.ts';

const ENTRY = fileURLToPath(new URL('../../test/helpers/job-server.ts', import.meta.url));

/** Resolves with the first match of `re` in the server's output (waits for the output, bounded). */
function waitFor(server: Server, re: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = re.exec(server.output());
      if (!m) return false;
      server.child.stdout!.off('data', check);
      clearTimeout(timer);
      resolve(m);
      return true;
    };
    const timer = setTimeout(() => {
      server.child.stdout!.off('data', check);
      reject(new Error(`no ${re} in the server's output:\n${server.output()}`));
    }, timeoutMs);
    if (!check()) server.child.stdout!.on('data', check);
  });
}

async function checkOnce(store: Store, id: string): Promise<void> {
  const row = (await findJob(store.db, id))!;
  assert.equal(row.state, 'completed');
  assert.equal(row.attempts, 2, 'the killed start counts');
  assert.match(row.lastError ?? '', /the lease of .* ran out/);
  assert.equal(await getSetting(store.db, `effect:${id}`), 1, 'the effect happened exactly once');
}

test('kill -9 mid-job on the embedded store: the restarted process completes the job exactly once', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-jobs-crash-'));
  const release = join(dataDir, 'release');
  const env = { GANTRY_DATA_DIR: dataDir, JOB_RELEASE_FILE: release };
  let server = await startServer({ ...env, JOB_ENQUEUE: 'embedded' }, { entry: ENTRY });
  try {
    const [, id] = await waitFor(server, /job (\S+) attempt 1 started/);
    await server.kill('SIGKILL');
    writeFileSync(release, '');
    // The lease is 60 s: only the takeover at start makes this quick.
    server = await startServer(env, { entry: ENTRY });
    await waitFor(server, new RegExp(`job ${id} attempt 2 started`));
    await waitFor(server, new RegExp(`job ${id} done`));
    await server.kill('SIGTERM');
    const store = await openStore({ dataDir, pgliteThread: false });
    try {
      await checkOnce(store, id!);
    } finally {
      await store.close();
    }
  } finally {
    await server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('kill -9 of a replica mid-job on PostgreSQL: the other replica takes it over when the lease runs out', {
  timeout: 180_000, skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL',
}, async () => {
  const store = await openTestStore();
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-jobs-crash-pg-'));
  const release = join(dataDir, 'release');
  const env = { DATABASE_URL: store.databaseUrl!, GANTRY_DATA_DIR: dataDir, JOB_RELEASE_FILE: release, JOB_LEASE_MS: '1500', GANTRY_JOBS_POLL_MS: '100' };
  const servers: Server[] = [];
  try {
    const a = await startServer({ ...env, JOB_ENQUEUE: 'postgres' }, { entry: ENTRY });
    servers.push(a);
    const [, id] = await waitFor(a, /job (\S+) attempt 1 started/);
    const b = await startServer(env, { entry: ENTRY });
    servers.push(b);
    // b polls all along; a renews its lease, so b leaves the job alone while a lives: wait
    // for a renewal made after a whole lease has passed since b started.
    await waitFor(b, /listening on/);
    const renewedBy = Date.now() + 1600;
    for (let i = 0; ; i++) {
      const row = (await findJob(store.db, id!))!;
      assert.equal(row.attempts, 1, 'b never takes the job of a live replica');
      if (row.updatedAtMs >= renewedBy) break;
      assert.ok(i < 400, 'a renews its lease');
      await delay(25);
    }
    await a.kill('SIGKILL');
    writeFileSync(release, '');
    await waitFor(b, new RegExp(`job ${id} attempt 2 started`));
    await waitFor(b, new RegExp(`job ${id} done`));
    assert.doesNotMatch(a.output(), new RegExp(`job ${id} done`));
    await checkOnce(store, id!);
  } finally {
    for (const s of servers) await s.kill('SIGKILL');
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
