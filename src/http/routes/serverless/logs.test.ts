// Endpoint and worker logs: plain text tails, timestamps, SSE, and following as lines are
// written (inserted here directly, as the reconciler writes them) until the source ends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { endpointLogs, endpointWorkers, endpoints } from '../../../store/schema-serverless.ts';

const BASE = '/gpu-instance/openapi/v1';
let t: TestApp;
let team: Team;
let owner: ReturnType<typeof as>;
let base: string;

before(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.creds.adminToken);
  await topup(t.app, t.creds.adminToken, team.userId, 10_000_000);
  owner = as(t.app, team.owner.apiKey);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
after(() => t.close());

async function newEndpoint(): Promise<string> {
  const r = await owner.post(`${BASE}/endpoint/create`, {
    endpoint: { image: { image: 'ghcr.io/acme/echo:1' }, ports: [{ port: 8080 }], products: [{ id: 'prd_rtx4090_24g' }], workerConfig: { minNum: 0 } },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
}

async function worker(endpointId: string, id: string, state = 'running'): Promise<void> {
  const now = t.clock.nowMs();
  await t.store.db.insert(endpointWorkers).values({ id, endpointId, teamId: team.userId, specVersion: 1, state, stateSinceMs: now, createdAt: new Date(now) });
}

/** Lines as the reconciler writes them. */
async function write(endpointId: string, workerId: string | null, ...lines: string[]): Promise<void> {
  await t.store.db.insert(endpointLogs).values(lines.map((line, i) => ({ endpointId, workerId, atMs: Date.UTC(2025, 0, 2, 3, 4, 5) + i, line })));
}

test('plain text: the endpoint\'s own lines and each worker\'s, the last N, with timestamps on request', async () => {
  const id = await newEndpoint();
  await worker(id, 'wk-logs-1');
  await write(id, null, 'scaled to 1 worker', 'worker wk-logs-1 started');
  await write(id, 'wk-logs-1', 'booting', 'listening on :8080', 'GET /health 200');
  await write(id, null, 'serving');

  const r = await t.app.inject({ url: `${BASE}/endpoint/log?id=${id}`, headers: { authorization: `Bearer ${team.owner.apiKey}` } });
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
  assert.equal(r.body, 'scaled to 1 worker\nworker wk-logs-1 started\nserving\n');
  const w = await owner.get(`${BASE}/endpoint/worker/log`, { id: 'wk-logs-1', tail: 2 });
  assert.equal(w.body, 'listening on :8080\nGET /health 200\n');
  const ts = await owner.get(`${BASE}/endpoint/worker/log`, { id: 'wk-logs-1', tail: 1, timestamps: 1 });
  assert.equal(ts.body, '2025-01-02T03:04:05.002Z GET /health 200\n');
  assert.equal((await owner.get(`${BASE}/endpoint/log`, { id, tail: 0 })).body, '');
  // the view links to these logs
  const e = (await owner.get(`${BASE}/endpoint`, { id })).body.endpoint;
  assert.equal(new URL(e.log).pathname + new URL(e.log).search, `${BASE}/endpoint/log?id=${id}`);
  assert.equal(new URL(e.workers[0].log).search, '?id=wk-logs-1');

  const bad = await owner.get(`${BASE}/endpoint/log`, { id, tail: 10_001 });
  assert.equal(bad.status, 400);
  assert.deepEqual([bad.body.reason, bad.body.metadata.field], ['VALIDATOR_PARAM', 'tail']);
  assert.match(bad.body.message, /0-10000/);

  // a worker's lines stay readable after its row is gone; another team reads none of them
  await t.store.db.delete(endpointWorkers).where(eq(endpointWorkers.id, 'wk-logs-1'));
  assert.equal((await owner.get(`${BASE}/endpoint/worker/log`, { id: 'wk-logs-1', tail: 1 })).body, 'GET /health 200\n');
  const other = as(t.app, (await createTeam(t.app, t.creds.adminToken)).owner.apiKey);
  for (const [url, q] of [[`${BASE}/endpoint/worker/log`, 'wk-logs-1'], [`${BASE}/endpoint/worker/log`, 'wk-none'], [`${BASE}/endpoint/log`, id]] as const) {
    const x = await other.get(url, { id: q });
    assert.equal(x.status, 400, JSON.stringify(x.body));
    assert.ok(['RESOURCE_NOT_FOUND', 'SERVERLESS_ENDPOINT_NOT_FOUND'].includes(x.body.reason), x.body.reason);
  }
});

test('sse=1: one event per line, with its seq as id; a line holding line breaks is one event of several data fields', async () => {
  const id = await newEndpoint();
  await write(id, null, 'one', 'two\nlines');
  const r = await t.app.inject({ url: `${BASE}/endpoint/log?id=${id}&sse=1`, headers: { authorization: `Bearer ${team.owner.apiKey}` } });
  assert.match(String(r.headers['content-type']), /^text\/event-stream/);
  const events = r.body.split('\n\n').filter(Boolean).map((e) => e.split('\n'));
  assert.equal(events.length, 2);
  assert.match(events[0]![0]!, /^id: \d+$/);
  assert.deepEqual(events[0]!.slice(1), ['data: one']);
  assert.deepEqual(events[1]!.slice(1), ['data: two', 'data: lines']);
  // Last-Event-ID resumes after the line seen
  const seen = events[0]![0]!.slice(4);
  const again = await t.app.inject({ url: `${BASE}/endpoint/log?id=${id}&sse=1`, headers: { authorization: `Bearer ${team.owner.apiKey}`, 'last-event-id': seen } });
  assert.equal(again.body.split('\n\n').filter(Boolean).length, 1);
});

/** Read a streamed answer until `until` holds for what arrived (or the stream ends). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, got: { text: string }, until: (text: string) => boolean): Promise<boolean> {
  const dec = new TextDecoder();
  while (!until(got.text)) {
    const { done, value } = await reader.read();
    if (done) return true;
    got.text += dec.decode(value, { stream: true });
  }
  return false;
}

test('follow=1&sse=1: the tail, then new lines as they are written; the stream ends when the endpoint is gone', async () => {
  const id = await newEndpoint();
  await write(id, null, 'before');
  const res = await fetch(`${base}${BASE}/endpoint/log?id=${id}&follow=1&sse=1&timestamps=1&tail=200`, { headers: { authorization: `Bearer ${team.owner.apiKey}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = res.body!.getReader();
  const got = { text: '' };
  await readUntil(reader, got, (x) => x.includes('before'));
  assert.match(got.text, /data: 2025-01-02T03:04:05\.000Z before\n\n$/);
  await write(id, null, 'after 1', 'after 2');
  await write(id, 'wk-other', 'a worker line is not the endpoint\'s');
  await readUntil(reader, got, (x) => x.includes('after 2'));
  assert.ok(got.text.indexOf('after 1') < got.text.indexOf('after 2'));
  // delete asks the reconciler to remove it; once the row is gone (after its last lines) the stream ends
  assert.equal((await owner.post(`${BASE}/endpoint/delete`, { name: id })).status, 200);
  await write(id, null, 'terminating');
  await t.store.db.delete(endpoints).where(eq(endpoints.id, id));
  const ended = await readUntil(reader, got, () => false);
  assert.ok(ended);
  assert.match(got.text, /terminating\n\n$/);
  assert.ok(!got.text.includes('a worker line'));
});

test('follow=1 (plain text) on a worker: new lines, and the end when the worker has ended', async () => {
  const id = await newEndpoint();
  await worker(id, 'wk-follow');
  const res = await fetch(`${base}${BASE}/endpoint/worker/log?id=wk-follow&follow=1&tail=0`, { headers: { authorization: `Bearer ${team.owner.apiKey}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const reader = res.body!.getReader();
  const got = { text: '' };
  await write(id, 'wk-follow', 'started');
  await readUntil(reader, got, (x) => x.includes('started\n'));
  await write(id, 'wk-follow', 'exit 0');
  await t.store.db.update(endpointWorkers).set({ state: 'exited' }).where(eq(endpointWorkers.id, 'wk-follow'));
  assert.ok(await readUntil(reader, got, () => false));
  assert.equal(got.text, 'started\nexit 0\n');
});

/** Wait for a condition the server reaches on its own (checked every 10 ms, at most 10 s). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; !cond(); i++) {
    assert.ok(i < 1000, 'the condition was not reached within 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('an open follow does not hold the app\'s close, and a client that leaves ends it', async () => {
  const h = await buildTestApp();
  try {
    const tm = await createTeam(h.app, h.creds.adminToken);
    const r = await as(h.app, tm.owner.apiKey).post(`${BASE}/endpoint/create`, {
      endpoint: { image: { image: 'x' }, ports: [{ port: 80 }], products: [{ id: 'prd_rtx4090_24g' }], workerConfig: { minNum: 0 } },
    });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}${BASE}/endpoint/log?id=${r.body.id}&follow=1&sse=1`;
    const headers = { authorization: `Bearer ${tm.owner.apiKey}` };
    // a follower listens for the endpoint's changes while it runs: count them
    const followers = () => (h.services.ctx.changes as unknown as { handlers: Map<string, Set<unknown>> }).handlers.get('endpoint.changed')?.size ?? 0;
    const idle = followers();
    const leaving = new AbortController();
    const first = await fetch(url, { headers, signal: leaving.signal });
    assert.equal(first.status, 200);
    await until(() => followers() === idle + 1);
    leaving.abort();
    await until(() => followers() === idle);
    const staying = await fetch(url, { headers });
    assert.equal(staying.status, 200);
    const reader = staying.body!.getReader();
    await h.app.close();
    assert.ok(await readUntil(reader, { text: '' }, () => false), 'the stream ended when the app closed');
  } finally {
    await h.close();
  }
});
