// GET /v3/async/tasks through HTTP: the team's tasks newest first, keyset pages that neither
// repeat nor skip a task while tasks are added, the status filter, each task as its result
// (outputs as signed links), another team's tasks never shown, and bad parameters named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';
import { fetchLink, importModel } from '../../../../test/helpers/media.ts';

const img = (prompt: string) => ({ request: { model_name: 'base.safetensors', prompt, width: 128, height: 128, image_num: 1, seed: 1 } });

test('the team\'s tasks: newest first, keyset pages while tasks are added, status filter, results, team scoping', async () => {
  const t = await buildTestApp({ env: { GANTRY_ESPEAK: 'off' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const other = await createTeam(t.app, t.creds.adminToken);
    for (const x of [team, other]) await topup(t.app, t.creds.adminToken, x.userId, 100_000);
    await importModel(t, { type: 'checkpoint', sd_name: 'base.safetensors' });
    const key = team.members.Developer.apiKey;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000); // ids are time-sortable: a task a second later sorts after
      const r = await as(t.app, key).post('/v3/async/txt2img', img(`picture ${i}`));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      created.push(r.body.task_id);
    }
    t.clock.advance(1000);
    const speech = await as(t.app, team.owner.apiKey).post('/v3/async/txt2speech', { request: { voice_id: 'Emily', texts: ['hello'] } });
    created.push(speech.body.task_id);
    await as(t.app, other.owner.apiKey).post('/v3/async/txt2img', img('not yours'));
    const list = (q: Record<string, string> = {}, k = key) => as(t.app, k).get('/v3/async/tasks', q);

    // queued, newest first; every key of the team sees every task of the team
    const first = await list();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.tasks.map((x: any) => x.task.task_id), [...created].reverse());
    assert.equal(first.body.pagination.next_cursor, '');
    assert.equal(first.body.tasks[0].task.task_type, 'TXT_TO_SPEECH');
    assert.equal(first.body.tasks[0].task.status, 'TASK_STATUS_QUEUED');
    assert.equal(first.body.tasks[0].ended_at, null);
    // what each was asked for, to tell them apart
    assert.deepEqual(first.body.tasks[0].input, { voice_id: 'Emily', language: first.body.tasks[0].input.language, texts: ['hello'] });
    assert.deepEqual(first.body.tasks[1].input, { model_name: 'base.safetensors', prompt: 'picture 4', negative_prompt: '' });
    assert.equal(first.body.tasks[0].created_at, Math.floor(t.clock.nowMs() / 1000));
    assert.deepEqual((await list({}, other.owner.apiKey)).body.tasks.map((x: any) => x.task.status), ['TASK_STATUS_QUEUED'], 'only its own');

    // pages of 2, with a task added between pages: no task repeats or is skipped
    const seen: string[] = [];
    let cursor = '';
    let added = '';
    for (let i = 0; i < 10; i++) {
      const r = await list({ limit: '2', ...(cursor ? { cursor } : {}) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.ok(r.body.tasks.length <= 2);
      seen.push(...r.body.tasks.map((x: any) => x.task.task_id));
      cursor = r.body.pagination.next_cursor;
      if (!added) {
        t.clock.advance(1000);
        added = (await as(t.app, key).post('/v3/async/txt2img', img('added while paging'))).body.task_id;
      }
      if (!cursor) break;
    }
    assert.deepEqual(seen, [...created].reverse(), 'a task added while paging comes before the first page, not inside the pages');
    assert.equal((await list()).body.tasks[0].task.task_id, added);

    // run them: the results carry their outputs; the status filter keeps one status
    await t.services.jobs.runDue();
    const done = await list({ status: 'TASK_STATUS_SUCCEED', limit: '100' });
    assert.equal(done.body.tasks.length, 7);
    const png = done.body.tasks.find((x: any) => x.task.task_id === created[0]);
    assert.equal(png.images.length, 1);
    assert.equal(png.ended_at, Math.floor(t.clock.nowMs() / 1000));
    assert.equal((await fetchLink(t, png.images[0].image_url)).status, 200);
    assert.equal(done.body.tasks.find((x: any) => x.task.task_type === 'TXT_TO_SPEECH').audios.length, 1);
    assert.deepEqual((await list({ status: 'TASK_STATUS_QUEUED' })).body.tasks, []);

    // bad parameters: the field and the rule
    for (const [k, v] of [['limit', '0'], ['limit', '101'], ['limit', 'x'], ['status', 'DONE'], ['cursor', 'nonsense'], ['cursor', `t_${created[0]}x`]]) {
      const r = await list({ [k!]: v! });
      assert.equal(r.status, 400, `${k}=${v}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.equal(r.body.metadata.field, k);
    }
    // a Billing key may not use media (the media family's FORBIDDEN)
    const billing = await list({}, team.members.Billing.apiKey);
    assert.equal(billing.status, 403);
    assert.equal(billing.body.reason, 'FORBIDDEN');
  } finally {
    await t.close();
  }
});
