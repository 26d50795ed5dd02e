// Webhooks of async tasks: on completion the task's extra.webhook.url gets
// {event_type: "ASYNC_TASK_RESULT", payload: <task result>}, signed with the team's secret
// (both secrets for 24 hours after a rotation), retried on a non-2xx answer or a timeout up to
// 5 times; test_mode answers at once and delivers its test result; the team's endpoints
// subscribed to task.succeeded / task.failed get the same result in their envelope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { importModel } from '../../../../test/helpers/media.ts';
import { startReceiver, verifyStandardWebhook, type Receiver } from '../../../../test/helpers/webhook-receiver.ts';

const ENV = { GANTRY_WEBHOOK_ALLOW_PRIVATE: '1', GANTRY_WEBHOOK_TIMEOUT_MS: '1000', GANTRY_ESPEAK: 'off' };

async function withApp(fn: (t: TestApp, team: Team, rx: Receiver) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: ENV });
  const rx = await startReceiver();
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    await fn(t, team, rx);
  } finally {
    await rx.close();
    await t.close();
  }
}

const deliver = (t: TestApp) => t.services.jobs.runDue({ names: ['webhook.endpoint', 'webhook.url'] });
const runTasks = (t: TestApp) => t.services.jobs.runDue({ names: ['media.task'] });
const nowS = (t: TestApp) => Math.floor(t.clock.nowMs() / 1000);

function txt2img(t: TestApp, team: Team, webhook: Record<string, unknown>) {
  return as(t.app, team.owner.apiKey).post('/v3/async/txt2img', {
    request: { model_name: 'base.safetensors', prompt: 'a red kite', width: 128, height: 128, seed: 7 }, extra: { webhook },
  });
}

test('a task\'s result goes to its webhook URL when it ends, signed; after a rotation both secrets verify', async () => {
  await withApp(async (t, team, rx) => {
    const owner = as(t.app, team.owner.apiKey);
    const s1 = (await owner.get('/openapi/v1/webhook/secret')).body.secret as string;
    const created = await txt2img(t, team, { url: `${rx.url}/task` });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await deliver(t);
    assert.equal(rx.received.length, 0, 'nothing before the task ends');
    await runTasks(t);
    await deliver(t);
    assert.equal(rx.received.length, 1);
    const r1 = rx.received[0]!;
    assert.ok(r1.path.endsWith('/task'), r1.path);
    const body = JSON.parse(r1.body);
    assert.equal(body.event_type, 'ASYNC_TASK_RESULT');
    const result = (await owner.get('/v3/async/task-result', { task_id: created.body.task_id })).body;
    assert.deepEqual(body.payload, result, 'the payload is the task result');
    assert.equal(body.payload.task.status, 'TASK_STATUS_SUCCEED');
    assert.equal(body.payload.images.length, 1);
    assert.ok(verifyStandardWebhook(s1, r1.headers, r1.body, nowS(t)));
    assert.ok(!verifyStandardWebhook(s1, r1.headers, r1.body.replace('SUCCEED', 'FAILED'), nowS(t)));

    const s2 = (await owner.post('/openapi/v1/webhook/secret/rotate')).body.secret as string;
    await txt2img(t, team, { url: rx.url });
    await runTasks(t);
    await deliver(t);
    const r2 = rx.received[1]!;
    assert.equal(String(r2.headers['webhook-signature']).split(' ').length, 2);
    assert.ok(verifyStandardWebhook(s2, r2.headers, r2.body, nowS(t)), 'the new secret verifies');
    assert.ok(verifyStandardWebhook(s1, r2.headers, r2.body, nowS(t)), 'the old one too, for 24 hours');
    t.clock.advance(86_400_000 + 1000);
    await txt2img(t, team, { url: rx.url });
    await runTasks(t);
    await deliver(t);
    const r3 = rx.received[2]!;
    assert.ok(verifyStandardWebhook(s2, r3.headers, r3.body, nowS(t)));
    assert.ok(!verifyStandardWebhook(s1, r3.headers, r3.body, nowS(t)), 'then only the new one');
  });
});

test('retries: a non-2xx answer or a timeout is retried (at most 5 times), then the delivery is failed', async () => {
  await withApp(async (t, team, rx) => {
    rx.answer(500, 'hang', 503, 200);
    await txt2img(t, team, { url: rx.url });
    await runTasks(t);
    for (let i = 0; i < 10 && rx.received.length < 4; i++) {
      await deliver(t);
      const [j] = (await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url' })).body.jobs;
      if (j.state !== 'queued') break;
      t.clock.set(j.dueAtMs);
    }
    assert.equal(rx.received.length, 4, 'a 500, a timeout, a 503, then a 200');
    assert.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 1, 'one delivery, the same id each attempt');
    const [ok] = (await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url' })).body.jobs;
    assert.equal(ok.state, 'completed');

    // a receiver that never accepts: the first attempt and 5 retries, then failed
    rx.received.length = 0;
    rx.answer(500);
    await txt2img(t, team, { url: rx.url });
    await runTasks(t);
    for (let i = 0; i < 10; i++) {
      await deliver(t);
      const jobs = (await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url' })).body.jobs;
      const j = jobs[0];
      if (j.state !== 'queued') break;
      t.clock.set(j.dueAtMs);
    }
    assert.equal(rx.received.length, 6);
    const jobs = (await as(t.app, t.creds.adminToken).get('/admin/v1/jobs', { name: 'webhook.url', state: 'failed' })).body.jobs;
    assert.equal(jobs.length, 1);
  });
});

test('test_mode answers at once with a result of the status asked for, and delivers it', async () => {
  await withApp(async (t, team, rx) => {
    const r = await txt2img(t, team, { url: rx.url, test_mode: { enabled: true, return_task_status: 'TASK_STATUS_FAILED' } });
    assert.equal(r.status, 200);
    await deliver(t);
    assert.equal(rx.received.length, 1);
    const body = JSON.parse(rx.received[0]!.body);
    assert.equal(body.event_type, 'ASYNC_TASK_RESULT');
    assert.equal(body.payload.task.task_id, r.body.task_id);
    assert.equal(body.payload.task.status, 'TASK_STATUS_FAILED');
    const speech = await as(t.app, team.owner.apiKey).post('/v3/async/txt2speech', {
      request: { voice_id: 'Emily', texts: ['hi'] }, extra: { webhook: { url: rx.url, test_mode: { enabled: true, return_task_status: 'TASK_STATUS_SUCCEED' } } },
    });
    await deliver(t);
    const b2 = JSON.parse(rx.received[1]!.body);
    assert.deepEqual([b2.payload.task.task_id, b2.payload.task.status, b2.payload.task.task_type], [speech.body.task_id, 'TASK_STATUS_SUCCEED', 'TXT_TO_SPEECH']);
  });
});

test('team endpoints subscribed to task.succeeded and task.failed get the result in their envelope', async () => {
  await withApp(async (t, team, rx) => {
    const ep = await as(t.app, team.owner.apiKey).post('/openapi/v1/webhook/endpoints', { url: `${rx.url}/team`, events: ['task.succeeded', 'task.failed'] });
    assert.equal(ep.status, 200, JSON.stringify(ep.body));
    const ok = await as(t.app, team.owner.apiKey).post('/v3/async/txt2img', { request: { model_name: 'base.safetensors', prompt: 'x', width: 128, height: 128 } });
    await runTasks(t);
    await txt2img(t, team, { url: `${rx.url}/own`, test_mode: { enabled: true, return_task_status: 'TASK_STATUS_FAILED' } });
    await deliver(t);
    // deliveries are sent in parallel: no order between them
    const team_ = rx.received.filter((r) => r.path.endsWith('/team')).map((r) => JSON.parse(r.body)).sort((a, b) => a.type.localeCompare(b.type));
    assert.deepEqual(team_.map((b) => [b.type, b.data.task.status]), [['task.failed', 'TASK_STATUS_FAILED'], ['task.succeeded', 'TASK_STATUS_SUCCEED']]);
    assert.equal(team_[1].data.task.task_id, ok.body.task_id);
    assert.equal(rx.received.filter((r) => r.path.endsWith('/own')).length, 1);
  });
});

test('a webhook URL on a private address is refused unless the operator allows them', async () => {
  const t = await buildTestApp({ env: { GANTRY_ESPEAK: 'off' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const r = await as(t.app, team.owner.apiKey).post('/v3/async/txt2speech', { request: { voice_id: 'Emily', texts: ['hi'] }, extra: { webhook: { url: 'http://127.0.0.1:9/hook' } } });
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
    assert.equal(r.body.metadata.field, 'extra.webhook.url');
  } finally {
    await t.close();
  }
});
