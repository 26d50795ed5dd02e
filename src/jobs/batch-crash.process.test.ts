// kill -9 in the middle of a batch: after a restart on the same store the batch finishes,
// every line is in the output once, billed once, and only the lines that were running at
// the kill ran again (their start was lost with the process; a line whose result was
// committed never runs again). A real server process (`node src/main.ts serve`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { startServer, type Server } from '../../test/helpers/server.ts';
import { openStore } from '../store/db.ts';
import { unbalancedCharges } from '../store/usage.ts';

const N = 300;
const CONCURRENCY = 4;
const CHUNK = 10;

async function api(server: Server, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return text.startsWith('{') && !text.includes('\n{') ? JSON.parse(text) : text;
}

/** Poll the batch until `done` holds of it (each poll is a request that answers at once; bounded). */
async function until(server: Server, key: string, id: string, done: (b: any) => boolean): Promise<any> {
  for (let i = 0; i < 6000; i++) {
    const b = await api(server, key, 'GET', `/openai/v1/batches/${id}`);
    if (done(b)) return b;
    await delay(10);
  }
  throw new Error(`batch ${id} never reached the state`);
}

test('kill -9 mid-batch: the restarted process finishes it; no line lost, billed twice or run again once finished', { timeout: 240_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-batch-crash-'));
  const env = {
    GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '20', GANTRY_SIM_TOKENS_PER_S: '100000',
    GANTRY_BATCH_CONCURRENCY: String(CONCURRENCY), GANTRY_BATCH_CHUNK_LINES: String(CHUNK), GANTRY_JOBS_POLL_MS: '50',
  };
  let server = await startServer(env);
  try {
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const key = creds.apiKey as string;
    const lines = Array.from({ length: N }, (_, i) => JSON.stringify({
      custom_id: `r${i}`, body: { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `line ${i}` }], max_tokens: 5 },
    }));
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([`${lines.join('\n')}\n`]), 'input.jsonl');
    const upload = await fetch(`${server.url}/openai/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const file = await upload.json() as { id: string };
    assert.equal(upload.status, 200, JSON.stringify(file));
    const batch = await api(server, key, 'POST', '/openai/v1/batches', { input_file_id: file.id, endpoint: '/v1/chat/completions' });
    // Killed with lines done and lines running.
    const before = await until(server, key, batch.id, (b) => b.request_counts.completed >= N / 5);
    await server.kill('SIGKILL');
    assert.ok(before.request_counts.completed < N, 'killed before the end');

    server = await startServer(env);
    const done = await until(server, key, batch.id, (b) => !['VALIDATING', 'PROGRESS'].includes(b.status));
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.request_counts, { total: N, completed: N, failed: 0 });
    const output = String(await api(server, key, 'GET', `/openai/v1/files/${done.output_file_id}/content`)).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(output.map((o) => o.custom_id), lines.map((_, i) => `r${i}`), 'every line once, in order');
    assert.ok(output.every((o) => o.response.status_code === 200));
    const usage = await fetch(`${server.url}/admin/v1/teams/${creds.userId}/usage`, { headers: { authorization: `Bearer ${creds.adminToken}` } });
    const totals = await usage.json() as { events: number; requests: number };
    assert.equal(totals.events, N, 'one usage event per line');
    assert.equal(totals.requests, N);
    await server.kill('SIGTERM');

    const store = await openStore({ dataDir, pgliteThread: false });
    try {
      const q = async (query: ReturnType<typeof sql>) => ((await store.db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows[0]!;
      // Batch API charges (one per group of lines answered in the same second) cover every line once.
      const charges = await q(sql`select coalesce(sum((detail->>'requests')::int), 0)::int as n from ledger_entries where category = 'batch' and billing_method = 5`);
      assert.deepEqual(charges, { n: N }, 'every line charged once, as a Batch API charge');
      assert.equal(await unbalancedCharges(store.db, creds.userId), 0, 'each charge is the sum of the lines it covers');
      // Lines run in chunks (jobs of GANTRY_BATCH_CHUNK_LINES lines); only the chunks held at
      // the kill started again, and in them only the lines not yet ended.
      const again = await q(sql`select count(*)::int as n from jobs where name = 'batch.lines' and attempts > 1`);
      assert.ok(Number(again.n) <= Math.ceil(CONCURRENCY / CHUNK) + 2, `${again.n} chunks started twice`);
      const chunks = await q(sql`select count(*)::int as n from jobs where name = 'batch.lines'`);
      assert.equal(chunks.n, N / CHUNK);
    } finally {
      await store.close();
    }
  } finally {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
