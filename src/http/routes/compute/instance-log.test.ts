// An instance's log through HTTP: Gantry's status lines and the sim workload's output as
// text (tail, timestamps), followed over SSE as the instance changes state until it is
// removed, team-scoped, and bounded (lines per instance, time after removal).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { BASE, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';
import { appendInstanceLog, countInstanceLog } from '../../../store/instance-logs.ts';
import { KEEP_AFTER_REMOVAL_MS, MAX_LINES_PER_INSTANCE } from '../../../domain/compute/logs.ts';
import { HEARTBEAT_MS } from '../../../drivers/sim/output.ts';

let f: Fixture;
let base: string;
before(async () => {
  f = await fixture();
  await f.t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(f.t.app.server.address() as { port: number }).port}`;
});
after(() => f.close());

const IMAGE = 'nvidia/cuda:12.4.0-base-ubuntu22.04';
const log = async (instanceId: string, q: Record<string, string | number> = {}) => {
  const r = await f.t.app.inject({ url: `${BASE}/gpu/instance/log?${new URLSearchParams({ instanceId, ...q } as Record<string, string>)}`, headers: { authorization: `Bearer ${f.team.owner.apiKey}` } });
  assert.equal(r.statusCode, 200, r.body);
  return r;
};

test('plain text: status lines as [gantry] lines and the workload\'s output, the last N, with timestamps on request; the get view links to it', async () => {
  const createdAt = f.t.clock.nowMs();
  const id = await f.create({ command: 'python serve.py', ports: '8080/http' });
  assert.equal((await f.get(id)).connectComponentLog.url, `${f.t.services.serverless.settings.publicBaseUrl}${BASE}/gpu/instance/log?instanceId=${id}`);
  await f.until(id, 'running');
  f.t.clock.advance(1000); // the workload's first lines are written in its first milliseconds
  const r = await log(id);
  assert.match(String(r.headers['content-type']), /^text\/plain/);
  const lines = r.body.split('\n').filter(Boolean);
  assert.deepEqual(lines.filter((l) => l.startsWith('[gantry]')), [
    `[gantry] created (1 × RTX 4090 24GB in cls_local, image ${IMAGE}, onDemand)`,
    '[gantry] toCreate → creating: scheduling the workload (1 × RTX 4090 24GB) in cluster cls_local',
    `[gantry] creating → pulling: pulling image ${IMAGE}`,
    `[gantry] pulling → running: running (image ${IMAGE})`,
  ]);
  assert.deepEqual(lines.filter((l) => !l.startsWith('[gantry]')), [
    `[sim] container ${id} started from ${IMAGE} (1 GPU, 16 CPU, 62 GB memory)`, '$ python serve.py', 'listening on 0.0.0.0:8080 (http)',
  ]);
  assert.deepEqual((await log(id, { tail: 2 })).body.split('\n').filter(Boolean), lines.slice(-2));
  assert.equal((await log(id, { tail: 0 })).body, '');
  const [first] = (await log(id, { timestamps: 1 })).body.split('\n');
  assert.equal(first, `${new Date(createdAt).toISOString()} ${lines[0]}`);

  const bad = await f.owner.get(`${BASE}/gpu/instance/log`, { instanceId: id, tail: 10_001 });
  assert.equal(bad.status, 400);
  assert.deepEqual([bad.body.reason, bad.body.metadata.field], ['VALIDATOR_PARAM', 'tail']);
  // another team's instance reads as missing, like get-instance, as does an unknown one
  const other = as(f.t.app, (await createTeam(f.t.app, f.t.creds.adminToken)).owner.apiKey);
  for (const q of [id, 'ins_nope']) {
    const x = await other.get(`${BASE}/gpu/instance/log`, { instanceId: q, follow: 1, sse: 1 });
    assert.equal(x.status, 400, JSON.stringify(x.body));
    assert.equal(x.body.reason, 'RESOURCE_NOT_FOUND');
    assert.equal(x.body.reason, (await other.get(`${BASE}/gpu/instance`, { instanceId: q })).body.reason);
  }
});

/** Read a streamed answer until `until` holds for what arrived; true when the stream ended first. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, got: { text: string }, until: (text: string) => boolean): Promise<boolean> {
  const dec = new TextDecoder();
  while (!until(got.text)) {
    const { done, value } = await reader.read();
    if (done) return true;
    got.text += dec.decode(value, { stream: true });
  }
  return false;
}

test('follow=1&sse=1: the tail, then a line for each change of state as it happens, the workload\'s last words; the stream ends when the instance is removed', { timeout: 60_000 }, async () => {
  const id = await f.create();
  await f.until(id, 'running');
  const res = await fetch(`${base}${BASE}/gpu/instance/log?instanceId=${id}&follow=1&sse=1&timestamps=1&tail=1`, { headers: { authorization: `Bearer ${f.team.owner.apiKey}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = res.body!.getReader();
  const got = { text: '' };
  await readUntil(reader, got, (x) => x.includes('pulling → running'));
  assert.match(got.text, /^id: \d+\ndata: \d{4}-\d\d-\d\dT[\d:.]+Z \[gantry\] pulling → running: running/);
  assert.equal(got.text.split('\n\n').filter(Boolean).length, 1, 'tail=1');

  // the stop is a line at once (the operation's own transaction), before any reconciler pass
  assert.equal((await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
  assert.equal(await readUntil(reader, got, (x) => x.includes('running → toStop: stop requested')), false);
  await f.until(id, 'exited');
  await readUntil(reader, got, (x) => x.includes('stopping → exited: stopped'));
  const data = got.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.replace(/^data: \S+ /, ''));
  assert.deepEqual(data.slice(1).filter((l) => !l.startsWith('heartbeat')), [
    '[gantry] running → toStop: stop requested', '[gantry] toStop → stopping: stopping the workload',
    'received SIGTERM: shutting down', '[gantry] stopping → exited: stopped',
  ]);
  assert.equal((await f.owner.post(`${BASE}/gpu/instance/delete`, { instanceId: id })).status, 200);
  await f.until(id, 'removed');
  assert.equal(await readUntil(reader, got, () => false), true, 'the follow ends once the instance is removed');
  assert.match(got.text, /removing → removed: removed\n\n$/);
});

test('a failure: the workload\'s last words, then the status line with the reason; a pull that fails says which image', async () => {
  const id = await f.create();
  await f.until(id, 'running');
  f.sim.crash(id);
  await f.until(id, 'exited');
  assert.deepEqual((await log(id, { tail: 2 })).body.split('\n').filter(Boolean), [
    'fatal: container exited with code 137 (killed)',
    '[gantry] running → exited: failed (crashed): the container crashed: container exited with code 137 (killed)',
  ]);
  const bad = await f.create({ imageUrl: 'registry.invalid/acme/sim-fail-pull:1' });
  await f.until(bad, 'exited');
  assert.equal((await log(bad, { tail: 1 })).body,
    '[gantry] pulling → exited: failed (image_pull_failed): image pull failed: failed to pull image "registry.invalid/acme/sim-fail-pull:1": manifest unknown or access denied\n');
});

test('bounds: an instance keeps its newest lines only; lines of an instance removed long ago go', async () => {
  const id = await f.create();
  await f.until(id, 'running');
  const row = { instanceId: id, teamId: f.team.userId, source: 'gantry', atMs: f.t.clock.nowMs() };
  await appendInstanceLog(f.t.store.db, Array.from({ length: MAX_LINES_PER_INSTANCE }, (_, i) => ({ ...row, line: `filler ${i}` })));
  // the next pass over the running instance (its metering interval) reads the workload's output
  await f.run(2 * HEARTBEAT_MS, 2 * HEARTBEAT_MS);
  assert.equal(await countInstanceLog(f.t.store.db, id), MAX_LINES_PER_INSTANCE);
  assert.match((await log(id, { tail: 1 })).body, /^heartbeat 2: /);

  assert.equal((await f.owner.post(`${BASE}/gpu/instance/delete`, { instanceId: id })).status, 200);
  await f.until(id, 'removed');
  f.t.clock.advance(KEEP_AFTER_REMOVAL_MS - 60_000);
  await f.t.services.compute.reconcile();
  assert.ok(await countInstanceLog(f.t.store.db, id) > 0, 'kept for a while after removal');
  f.t.clock.advance(3_600_000);
  await f.t.services.compute.reconcile();
  assert.equal(await countInstanceLog(f.t.store.db, id), 0);
  assert.equal((await log(id)).body, '', 'the removed instance still reads (its log is empty)');
});
