// Two Gantry processes on one PostgreSQL and one Redis serving one endpoint: either replica
// takes requests for it, the worker's maxConcurrent holds across both (slots in Redis), and
// the endpoint's metrics count the requests of both.
// Needs TEST_DATABASE_URL and TEST_REDIS_URL (CI sets both); skipped otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../../test/helpers/app.ts';
import { replicaEnv, startServer, type Server } from '../../../test/helpers/server.ts';
import { getSetting } from '../../store/settings.ts';
import type { Credentials } from '../bootstrap.ts';

const skip = !process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;
const BASE = '/gpu-instance/openapi/v1';

async function api(server: Server, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

test('two replicas share one endpoint: both route to its worker, and maxConcurrent holds across them', { skip, timeout: 120_000 }, async () => {
  const store = await openTestStore();
  const creds = (await getSetting<Credentials>(store.db, 'test_credentials'))!;
  const env = {
    ...replicaEnv(store.databaseUrl!, process.env.TEST_REDIS_URL!, '/tmp/gantry-serverless-replicas'),
    GANTRY_SIM_TIME_SCALE: '50', // sim phases 50× faster: a worker boots in a fraction of a second
  };
  const servers: Server[] = [];
  try {
    // b serves only: with the sim driver the workers live in the process that runs the jobs
    servers.push(await startServer(env), await startServer({ ...env, GANTRY_RUN_JOBS: '0' }));
    const [a, b] = servers as [Server, Server];
    const admin = (path: string, body: unknown) => api(a, creds.adminToken, 'POST', path, body);
    const team = (await admin('/admin/v1/teams', { name: 'sl-replicas', ownerEmail: 'owner@sl-replicas.test' })).body;
    const key = (await admin(`/admin/v1/members/${team.ownerMemberId}/keys`, { name: 'k' })).body.apiKey as string;
    assert.equal((await admin(`/admin/v1/teams/${team.userId}/topups`, { amount: 10_000_000, idempotencyKey: 'slr-1' })).status, 200);

    const created = await api(a, key, 'POST', `${BASE}/endpoint/create`, {
      endpoint: {
        appName: 'shared', image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8000 }], products: [{ id: 'prd_rtx4090_24g' }],
        policy: { type: 'concurrency', value: 1000 }, healthy: { path: '/health', period: 1 },
        workerConfig: { minNum: 1, maxNum: 1, maxConcurrent: 2, freeTimeout: 60, gpuNum: 1, requestTimeout: 60 },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id as string;
    // whichever replica runs the reconciler, the endpoint comes up; b sees it too
    const deadline = Date.now() + 15_000;
    for (;;) {
      const got = await api(b, key, 'GET', `${BASE}/endpoint?id=${id}`);
      if (got.body.endpoint?.state?.state === 'serving' && got.body.endpoint.workers.some((w: { healthy: boolean }) => w.healthy)) break;
      assert.ok(Date.now() < deadline, `never serving: ${JSON.stringify(got.body)}\n${a.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    // 16 slow requests at once, half through each replica, onto one worker with 2 slots
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      api(i % 2 ? a : b, key, 'POST', '/serverless/shared/work', { i }, { 'x-sim-delay-ms': '150' })));
    assert.deepEqual(answers.map((r) => r.status), Array(16).fill(200), JSON.stringify(answers.find((r) => r.status !== 200)?.body));
    const workers = new Set(answers.map((r) => r.body.workerId));
    assert.equal(workers.size, 1, 'one worker took them all');
    const peak = Math.max(...answers.map((r) => r.body.peakInflight as number));
    assert.equal(peak, 2, `the worker answered at most maxConcurrent at once (peak ${peak})`);
    assert.ok(answers.some((r) => Number(r.headers.get('x-gantry-queue-ms')) > 0), 'requests waited for a slot');

    // Metrics: each replica counted the requests it served and flushes them additively (a
    // read flushes the reading replica's counts first): read through a, then through b, and
    // the row holds both halves, with the worker a's reconciler saw running.
    const range = `id=${id}&startTime=${Math.floor(Date.now() / 1000) - 600}&endTime=${Math.floor(Date.now() / 1000) + 60}`;
    assert.equal((await api(a, key, 'GET', `${BASE}/endpoint/metrics?${range}`)).status, 200);
    const m = await api(b, key, 'GET', `${BASE}/endpoint/metrics?${range}`);
    assert.equal(m.status, 200, JSON.stringify(m.body));
    const points = m.body.data as { answered: number; failed: number; running: number }[];
    assert.equal(points.reduce((n, p) => n + p.answered, 0), 16, JSON.stringify(points.filter((p) => p.answered)));
    assert.equal(points.reduce((n, p) => n + p.failed, 0), 0);
    assert.ok(points.some((p) => p.running > 0), 'the worker was sampled running');
  } finally {
    await Promise.all(servers.map((s) => s.kill('SIGTERM')));
    await store.close();
  }
});
