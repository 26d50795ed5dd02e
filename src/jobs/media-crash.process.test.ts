// kill -9 during media tasks: after a restart on the same store every task succeeds, none is
// lost, each is charged once and its hold released, and a task that had ended before the
// kill never runs again. A real server process (`node src/main.ts serve`), whose first start
// seeds the demo catalogue (the checkpoint used here is one of its records).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { startServer, type Server } from '../../test/helpers/server.ts';
import { openStore } from '../store/db.ts';
import { pngSize } from '../lib/png.ts';

const TASKS = 6;

async function api(server: Server, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

async function statuses(server: Server, key: string, ids: string[]): Promise<any[]> {
  return Promise.all(ids.map((id) => api(server, key, 'GET', `/v3/async/task-result?task_id=${id}`)));
}

/** Poll until `done` holds of the tasks' results (each poll answers at once; bounded). */
async function until(server: Server, key: string, ids: string[], done: (rs: any[]) => boolean): Promise<any[]> {
  for (let i = 0; i < 3000; i++) {
    const rs = await statuses(server, key, ids);
    if (done(rs)) return rs;
    await delay(20);
  }
  throw new Error('the tasks never reached the state');
}

const count = (rs: any[], status: string) => rs.filter((r) => r.task.status === status).length;

test('kill -9 during media tasks: the restarted process finishes them; none lost, charged twice or run again once ended', { timeout: 240_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-media-crash-'));
  const env = { GANTRY_DATA_DIR: dataDir, GANTRY_JOBS_POLL_MS: '50', GANTRY_MEDIA_TASK_CONCURRENCY: '1', GANTRY_ESPEAK: 'off' };
  let server = await startServer(env);
  try {
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const key = creds.apiKey as string;
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const r = await api(server, key, 'POST', '/v3/async/txt2img', {
        request: { model_name: 'sd_xl_base_1.0.safetensors', prompt: `lighthouse ${i}`, width: 1024, height: 1024, image_num: 3, seed: i },
      });
      ids.push(r.task_id);
    }
    // killed with tasks ended, one running, and the rest queued
    const before = await until(server, key, ids, (rs) => count(rs, 'TASK_STATUS_SUCCEED') >= 1 && count(rs, 'TASK_STATUS_PROCESSING') === 1);
    await server.kill('SIGKILL');
    const endedBefore = ids.filter((_, i) => before[i].task.status === 'TASK_STATUS_SUCCEED');
    assert.ok(endedBefore.length < TASKS, 'killed before the end');

    server = await startServer(env);
    const after = await until(server, key, ids, (rs) => rs.every((r) => ['TASK_STATUS_SUCCEED', 'TASK_STATUS_FAILED'].includes(r.task.status)));
    assert.deepEqual(after.map((r) => r.task.status), ids.map(() => 'TASK_STATUS_SUCCEED'));
    for (const r of after) {
      assert.equal(r.images.length, 3);
      const link = new URL(r.images[2].image_url);
      const png = Buffer.from(await (await fetch(`${server.url}${link.pathname}${link.search}`)).arrayBuffer());
      assert.deepEqual(pngSize(png), { width: 1024, height: 1024 });
    }
    const balance = await api(server, key, 'GET', '/openapi/v1/billing/balance/detail');
    assert.equal(balance.pendingCharges, '0', 'every hold released');
    await server.kill('SIGTERM');

    const store = await openStore({ dataDir, pgliteThread: false });
    try {
      const q = async (query: ReturnType<typeof sql>) => ((await store.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows;
      const [charges] = await q(sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys, sum(amount_micro)::text as micro from ledger_entries where category = 'media'`);
      assert.deepEqual(charges, { n: TASKS, keys: TASKS, micro: String(TASKS * 3 * 30 * 1_000_000) }, 'one charge per task: 3 images × 30 units');
      const jobs = await q(sql`select payload->>'taskId' as task, attempts from jobs where name = 'media.task'`);
      assert.equal(jobs.length, TASKS, 'one job per task');
      for (const id of endedBefore) assert.equal(jobs.find((j) => j.task === id)!.attempts, 1, `task ${id} ended before the kill and never ran again`);
      // one task at a time (concurrency 1): at most the one running at the kill started twice
      // (none, when it committed between the last poll and the kill)
      const starts = jobs.reduce((n, j) => n + Number(j.attempts), 0);
      assert.ok(starts === TASKS || starts === TASKS + 1, `${starts} starts for ${TASKS} tasks`);
      const [holds] = await q(sql`select count(*)::int as n from spend_holds`);
      assert.equal(holds!.n, 0);
    } finally {
      await store.close();
    }
  } finally {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
