// The Batches API end to end on the interface's bases: the official openai package (upload,
// create, poll, output and error files, cancel, list pages), the batch object of interface.md
// (and that these bases never answer OpenAI's shapes, which are /v1's: openai-base.test.ts),
// validation of bad files, create refusals, team scoping, cancel, expiry and Batch API billing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { BATCH_STATUSES, type BatchObject } from '../../../domain/batches/view.ts';
import { chatLine, fileLines, jsonl, runBatchJobs, SMALL, uploadInput } from '../../../../test/helpers/batches.ts';

const FAST = { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' };

async function withApp(fn: (t: TestApp, team: Team) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const t = await buildTestApp({ env: { ...FAST, ...env } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
    await fn(t, team);
  } finally {
    await t.close();
  }
}

test('the official openai package: upload, create, poll, output and error files, cancel, list pages', async () => {
  await withApp(async (t, team) => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });
    // line 3 asks for more output than the model's context: answered 400 when it runs, so it goes to the error file
    const lines = [chatLine(1), chatLine(2), chatLine(3, { body: { ...chatLine(3).body, max_tokens: 10_000_000 } })];
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(lines)), 'in.jsonl'), purpose: 'batch' });
    // interface.md types the timestamps as strings (the SDK's types say numbers; it reads them as they come).
    // OpenAI's "24h" is accepted; the window applied is the interface's 48 h.
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } }) as unknown as BatchObject;
    const now = String(Math.floor(t.clock.nowMs() / 1000));
    assert.deepEqual(created, {
      id: created.id, object: 'batch', endpoint: '/v1/chat/completions', errors: '', input_file_id: file.id, completion_window: '48h',
      status: 'VALIDATING', output_file_id: '', error_file_id: '', created_at: now, in_progress_at: null,
      expires_at: String(Number(now) + 48 * 3600), finalizing_at: null, completed_at: null, failed_at: null, expired_at: null,
      cancelling_at: null, cancelled_at: null, updated_at: now, request_counts: { total: 3, completed: 0, failed: 0 },
      total: 3, completed: 0, failed: 0, metadata: { job: 'nightly' }, version: 1, created_by: team.owner.memberId,
      created_by_key_id: team.owner.keyId, remark: '',
    });
    await runBatchJobs(t);
    const done = await client.batches.retrieve(created.id) as unknown as BatchObject;
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
    assert.ok(done.in_progress_at && done.finalizing_at && done.completed_at);
    assert.equal(done.version, 3, 'VALIDATING → PROGRESS → COMPLETED');
    const output = (await (await client.files.content(done.output_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(output.map((o) => o.custom_id), ['r1', 'r2']);
    for (const o of output) {
      assert.match(o.id, /^batch_req_/);
      assert.equal(o.error, null);
      assert.equal(o.response.status_code, 200);
      assert.equal(o.response.body.object, 'chat.completion');
      assert.equal(o.response.body.model, SMALL);
      assert.equal(typeof o.response.request_id, 'string');
    }
    const errors = (await (await client.files.content(done.error_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(errors.length, 1);
    assert.equal(errors[0].custom_id, 'r3');
    assert.equal(errors[0].response.status_code, 400);
    assert.equal(errors[0].response.body.error.type, 'invalid_request_error');
    const outFile = await client.files.retrieve(done.output_file_id!);
    assert.equal(outFile.purpose, 'batch_output');
    assert.equal((outFile as unknown as { metadata: { total_requests: number } }).metadata.total_requests, 2);

    // cancel another before any line runs: every line is cancelled, the error file says so
    t.clock.advance(1000);
    const other = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '48h' as '24h' });
    await t.services.jobs.runDue({ names: ['batch.validate'] });
    assert.equal((await client.batches.retrieve(other.id)).status, 'PROGRESS');
    const cancelling = await client.batches.cancel(other.id);
    assert.equal(cancelling.status, 'CANCELLING');
    assert.ok(cancelling.cancelling_at);
    await runBatchJobs(t);
    const cancelled = await client.batches.retrieve(other.id);
    assert.equal(cancelled.status, 'CANCELLED');
    assert.equal(cancelled.output_file_id, '');
    const cancelledLines = (await (await client.files.content(cancelled.error_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(cancelledLines.map((l) => [l.custom_id, l.error.code]), [['r1', 'batch_cancelled'], ['r2', 'batch_cancelled'], ['r3', 'batch_cancelled']]);

    // list pages of one, newest first, through `after`
    const listed: string[] = [];
    for await (const b of client.batches.list({ limit: 1 })) listed.push(b.id);
    assert.deepEqual(listed, [other.id, created.id]);
  });
});

/** interface.md's batch job, field by field. */
const INTERFACE_FIELDS = [
  'id', 'object', 'endpoint', 'input_file_id', 'output_file_id', 'error_file_id', 'completion_window', 'in_progress_at', 'expires_at',
  'finalizing_at', 'completed_at', 'failed_at', 'expired_at', 'cancelling_at', 'cancelled_at', 'status', 'errors', 'version', 'created_at',
  'updated_at', 'created_by', 'created_by_key_id', 'remark', 'total', 'completed', 'failed', 'metadata', 'request_counts',
].sort();
const EVENT_TIMES = ['in_progress_at', 'expires_at', 'finalizing_at', 'completed_at', 'failed_at', 'expired_at', 'cancelling_at', 'cancelled_at', 'updated_at'];

function assertInterfaceBatch(b: any, where: string): void {
  assert.deepEqual(Object.keys(b).sort(), INTERFACE_FIELDS, `${where}: interface.md's fields, no others (no model, no usage)`);
  assert.ok((BATCH_STATUSES as readonly string[]).includes(b.status), `${where}: status ${b.status} is interface.md's`);
  assert.match(b.created_at, /^\d+$/, `${where}: created_at is a string of Unix seconds`);
  for (const k of EVENT_TIMES) assert.ok(b[k] === null || (typeof b[k] === 'string' && /^\d+$/.test(b[k])), `${where}: ${k} ${b[k]}`);
  for (const k of ['output_file_id', 'error_file_id', 'errors', 'remark']) assert.equal(typeof b[k], 'string', `${where}: ${k}`);
  assert.equal(b.completion_window, '48h', where);
}

test("the interface's bases answer interface.md's batch object and file record, never OpenAI's", async () => {
  await withApp(async (t, team) => {
    const owner = as(t.app, team.owner.apiKey);
    const good = await uploadInput(t, team.owner.apiKey, jsonl([chatLine(1), chatLine(2)]));
    const bad = await uploadInput(t, team.owner.apiKey, jsonl([chatLine(1), chatLine(1)]));
    const bases = ['/openai/v1', '/openai', '/v3/openai'];
    for (const base of bases) {
      const created = await owner.post(`${base}/batches`, { input_file_id: good, endpoint: '/v1/chat/completions', completion_window: '24h' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assertInterfaceBatch(created.body, `${base} create`);
      assert.deepEqual([created.body.status, created.body.output_file_id, created.body.error_file_id, created.body.errors], ['VALIDATING', '', '', '']);
      const file = (await owner.get(`${base}/files/${good}`)).body;
      assert.deepEqual(Object.keys(file).sort(), ['bytes', 'created_at', 'expires_at', 'filename', 'id', 'metadata', 'object', 'purpose'], `${base}: compat.md's file record, no status`);
      const files = (await owner.get(`${base}/files`)).body;
      assert.deepEqual([files.code, files.message], ['200', 'success'], `${base}: compat.md's {code, message, data}`);
    }
    t.clock.advance(1000); // ids sort by time
    const failing = await owner.post('/openai/v1/batches', { input_file_id: bad, endpoint: '/v1/chat/completions' });
    t.clock.advance(1000);
    const cancelled = await owner.post('/openai/v1/batches', { input_file_id: good, endpoint: '/v1/chat/completions' });
    const cancelling = await owner.post(`/v3/openai/batches/${cancelled.body.id}/cancel`);
    assertInterfaceBatch(cancelling.body, 'cancel');
    assert.equal(cancelling.body.status, 'CANCELLING');
    await runBatchJobs(t);
    for (const base of bases) {
      const listed = (await owner.get(`${base}/batches`)).body.data;
      for (const b of listed) assertInterfaceBatch(b, `${base} list`);
      assert.deepEqual(listed.map((b: any) => b.status), ['CANCELLED', 'FAILED', 'COMPLETED', 'COMPLETED', 'COMPLETED'], base);
      const failed = (await owner.get(`${base}/batches/${failing.body.id}`)).body;
      assertInterfaceBatch(failed, `${base} retrieve`);
      assert.equal(failed.errors, 'line 2: custom_id "r1" is used by an earlier line; each must be unique', 'the messages, one a line');
      assert.equal(failed.output_file_id, '');
      const completed = listed.find((b: any) => b.status === 'COMPLETED');
      assert.match(completed.output_file_id, /^file_/);
      assert.equal(completed.error_file_id, '', 'no line failed: no error file');
    }
  });
});

test('create: 400 naming the field; another team sees nothing; every key of the team sees the batch', async () => {
  await withApp(async (t, team) => {
    const owner = as(t.app, team.owner.apiKey);
    const file = await uploadInput(t, team.owner.apiKey, jsonl([chatLine(1)]));
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await owner.post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions', ...body });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY');
      assert.equal(r.body.error.param, field, JSON.stringify(r.body));
    };
    await bad({ endpoint: '/v1/embeddings' }, 'endpoint');
    await bad({ input_file_id: 'file_nothere' }, 'input_file_id');
    await bad({ input_file_id: 'file\u0000' }, 'input_file_id');
    await bad({ completion_window: '1h' }, 'completion_window');
    await bad({ metadata: { a: 1 } }, 'metadata.a');
    await bad({ metadata: { a: 'x\u0000' } }, 'metadata.a');
    const created = await owner.post('/v3/openai/batches', { input_file_id: file, endpoint: '/v1/chat/completions' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.completion_window, '48h', 'the window defaults to 48h');
    assert.equal(created.body.metadata, null);

    const dev = as(t.app, team.members.Developer.apiKey);
    assert.equal((await dev.get(`/openai/batches/${created.body.id}`)).body.id, created.body.id);
    const other = await createTeam(t.app, t.creds.adminToken);
    const stranger = as(t.app, other.owner.apiKey);
    for (const r of [await stranger.get(`/openai/v1/batches/${created.body.id}`), await stranger.post(`/openai/v1/batches/${created.body.id}/cancel`)]) {
      assert.equal(r.status, 404);
      assert.equal(r.body.reason, 'BATCH_NOT_FOUND');
    }
    assert.deepEqual((await stranger.get('/openai/v1/batches')).body, { object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    const foreign = await stranger.post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions' });
    assert.equal(foreign.status, 400, "another team's file is no input");
    assert.equal(foreign.body.error.param, 'input_file_id');
    const billing = as(t.app, team.members.Billing.apiKey);
    assert.equal((await billing.get('/openai/v1/batches')).status, 403, 'the Billing role calls no models');

    await runBatchJobs(t);
    const done = await owner.get(`/openai/v1/batches/${created.body.id}`);
    assert.equal(done.body.status, 'COMPLETED');
    const again = await owner.post(`/openai/v1/batches/${created.body.id}/cancel`);
    assert.equal(again.status, 400, 'a completed batch cannot be cancelled');
    assert.equal(again.body.error.param, 'batch_id');
  });
});

test('validation: a bad file fails the batch with errors naming each line, and nothing runs', async () => {
  await withApp(async (t, team) => {
    const admin = as(t.app, t.creds.adminToken);
    const dev = team.members.Developer; // its policy allows the small model only (set below)
    const policy = await as(t.app, team.owner.apiKey).put(`/openapi/v2/user/key/${dev.keyId}/model-access-policy`, {
      mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }],
    });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
    const cases: [string, unknown[], { code: string; param: string | null; line: number }[]][] = [
      ['duplicate custom_id, wrong url, bad body, streamed, no custom_id', [
        chatLine(1), chatLine(1), chatLine(2, { url: '/v1/completions' }), chatLine(3, { body: { model: SMALL, messages: [] } }),
        chatLine(4, { body: { ...chatLine(4).body, stream: true } }), { body: chatLine(5).body }, chatLine(6, { method: 'GET' }),
        chatLine(7, { body: { ...chatLine(7).body, tool_choice: 'auto' } }),
      ], [
        { code: 'duplicate_custom_id', param: 'custom_id', line: 2 }, { code: 'invalid_url', param: 'url', line: 3 },
        { code: 'invalid_request', param: 'body.messages', line: 4 }, { code: 'invalid_request', param: 'body.stream', line: 5 },
        { code: 'missing_required_parameter', param: 'custom_id', line: 6 }, { code: 'invalid_method', param: 'method', line: 7 },
        { code: 'invalid_request', param: 'body.tool_choice', line: 8 },
      ]],
      ['two models', [chatLine(1), chatLine(2, { body: { ...chatLine(2).body, model: 'gantry/sim-chat-large' } })], [
        { code: 'mismatched_model', param: 'body.model', line: 2 },
      ]],
      ['a model the key may not use', [chatLine(1, { body: { ...chatLine(1).body, model: 'gantry/sim-chat-large' } })], [
        { code: 'model_not_found', param: 'body.model', line: 1 },
      ]],
      ['a model that does not exist', [chatLine(1, { body: { ...chatLine(1).body, model: 'nobody/none' } })], [
        { code: 'model_not_found', param: 'body.model', line: 1 },
      ]],
    ];
    for (const [what, lines, expected] of cases) {
      const file = await uploadInput(t, dev.apiKey, jsonl(lines));
      const created = await as(t.app, dev.apiKey).post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      await runBatchJobs(t);
      const b = (await as(t.app, dev.apiKey).get(`/openai/v1/batches/${created.body.id}`)).body;
      assert.equal(b.status, 'FAILED', what);
      assert.ok(b.failed_at, what);
      // the codes and params in OpenAI's list (the /v1 rendering); here, interface.md's string of the messages
      const { errors } = (await as(t.app, dev.apiKey).get(`/v1/batches/${created.body.id}`)).body;
      assert.equal(errors.object, 'list');
      assert.deepEqual(errors.data.map((e: any) => ({ code: e.code, param: e.param, line: e.line })), expected, what);
      for (const e of errors.data) assert.match(e.message, new RegExp(`^line ${e.line}: `));
      assert.equal(b.errors, errors.data.map((e: any) => e.message).join('\n'), what);
      assert.equal(b.output_file_id, '');
      assert.deepEqual(b.request_counts, { total: lines.length, completed: 0, failed: 0 });
    }
    const usage = await admin.get(`/admin/v1/teams/${team.userId}/usage`);
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    assert.equal(usage.body.events, 0, 'nothing of a failed batch ran');
  });
});

test('billing: Batch API (method 5, category batch) on the creating key, at half price by default or the operator\'s batch price; counted by the key budget', async () => {
  await withApp(async (t, team) => {
    const admin = as(t.app, t.creds.adminToken);
    const dev = team.members.Developer;
    const key = as(t.app, dev.apiKey);
    const budget = await as(t.app, team.owner.apiKey).put('/openapi/v1/user/team/key-budget', { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 100_000_000 });
    assert.equal(budget.status, 200, JSON.stringify(budget.body));
    const runOne = async (lines: unknown[]) => {
      const file = await uploadInput(t, dev.apiKey, jsonl(lines));
      const b = await key.post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions' });
      assert.equal(b.status, 200, JSON.stringify(b.body));
      await runBatchJobs(t);
      assert.equal((await key.get(`/openai/v1/batches/${b.body.id}`)).body.status, 'COMPLETED');
    };
    const day = { cycleType: 'Day', startTime: Math.floor(t.clock.nowMs() / 1000) - 86_400, endTime: Math.floor(t.clock.nowMs() / 1000) + 3 * 86_400 };
    const keyBills = async () => (await as(t.app, team.owner.apiKey).get('/openapi/v1/billing/apikey/bill/list', { ...day, category: 'batch' })).body.bills;

    await runOne([chatLine(1), chatLine(2)]);
    let bills = await keyBills();
    assert.equal(bills.length, 1, JSON.stringify(bills));
    assert.equal(bills[0].billingMethod, 5);
    assert.equal(bills[0].category, 'batch');
    assert.equal(bills[0].ownerID, dev.keyId);
    assert.deepEqual([bills[0].basePrice0, bills[0].basePrice1], ['500', '1000'], 'half of 1000 and 2000 per million tokens');
    const llm = (await as(t.app, team.owner.apiKey).get('/openapi/v1/billing/apikey/bill/list', { ...day, category: 'llm' })).body.bills;
    assert.equal(llm.length, 0, 'batch lines are not interactive usage');

    // the operator sets a batch price; a line then costs enough to show in the key budget
    const small = (await admin.get('/admin/v1/models')).body.models.find((m: any) => m.id === SMALL);
    const { created: _c, owned_by: _o, ...model } = small;
    const put = await admin.post('/admin/v1/models', { ...model, batchInputTokenPricePerM: 3_000_000, batchOutputTokenPricePerM: 5_000_000 });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.batchInputTokenPricePerM, '3000000');
    t.clock.advance(86_400_000); // the next day: a bill row of its own (and past the catalogue cache)
    await runOne([chatLine(3)]);
    bills = await keyBills();
    const priced = bills.find((b: any) => b.basePrice0 === '3000000');
    assert.ok(priced, JSON.stringify(bills));
    assert.equal(priced.basePrice1, '5000000');
    const budgets = await as(t.app, team.owner.apiKey).get('/openapi/v1/user/team/key-budget-list', { member_id: dev.memberId });
    const used = budgets.body.key_budgets.find((b: any) => b.key_id === dev.keyId).used;
    const total = bills.reduce((sum: number, b: any) => sum + Number(b.amount), 0);
    assert.ok(used > 0 && used === total, `key budget used ${used}, bills ${total}`);
  });
});

test('expiry: past 48 h the lines not started go to the error file (batch_expired); finished ones are billed and in the output', async () => {
  await withApp(async (t, team) => {
    const owner = as(t.app, team.owner.apiKey);
    const file = await uploadInput(t, team.owner.apiKey, jsonl([chatLine(1), chatLine(2), chatLine(3)]));
    const b = (await owner.post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions' })).body;
    await t.services.jobs.runDue({ names: ['batch.validate'] });
    // only line 1 gets its turn before the window closes
    await t.store.db.execute(sql`update jobs set due_at_ms = due_at_ms + 1000000000000 where name = 'batch.lines' and (payload->>'from')::int > 1`);
    await t.services.jobs.runDue();
    assert.deepEqual((await owner.get(`/openai/v1/batches/${b.id}`)).body.request_counts, { total: 3, completed: 1, failed: 0 });
    t.clock.advance(48 * 3_600_000 - 1000);
    await t.services.jobs.runNow('batches.expire');
    assert.equal((await owner.get(`/openai/v1/batches/${b.id}`)).body.status, 'PROGRESS', 'not before the window closes');
    t.clock.advance(1000);
    await t.services.jobs.runNow('batches.expire');
    await runBatchJobs(t);
    const done = (await owner.get(`/openai/v1/batches/${b.id}`)).body;
    assert.equal(done.status, 'EXPIRED');
    assert.equal(done.expired_at, String(Math.floor(t.clock.nowMs() / 1000)));
    assert.deepEqual(done.request_counts, { total: 3, completed: 1, failed: 2 });
    const out = await fileLines(t, team.owner.apiKey, done.output_file_id);
    assert.deepEqual(out.map((o) => o.custom_id), ['r1']);
    const errs = await fileLines(t, team.owner.apiKey, done.error_file_id);
    assert.deepEqual(errs.map((e) => [e.custom_id, e.response, e.error.code]), [['r2', null, 'batch_expired'], ['r3', null, 'batch_expired']]);
    const usage = (await as(t.app, t.creds.adminToken).get(`/admin/v1/teams/${team.userId}/usage`)).body;
    assert.equal(usage.events, 1, 'the finished line is billed, once');
  }, { GANTRY_BATCH_CHUNK_LINES: '1' }); // a job per line: line 1 alone gets its turn
});

test('cancel while lines run: no new line starts, the running ones finish and are in the partial output', async () => {
  await withApp(async (t, team) => {
    const owner = as(t.app, team.owner.apiKey);
    const file = await uploadInput(t, team.owner.apiKey, jsonl([1, 2, 3, 4, 5].map((i) => chatLine(i))));
    const b = (await owner.post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions' })).body;
    await t.services.jobs.runDue({ names: ['batch.validate'] });
    // Watch lines reach the model: two at a time (GANTRY_BATCH_CONCURRENCY), each taking the simulator's 300 ms.
    const gateway = t.services.gateway;
    const run = gateway.run.bind(gateway);
    let started = 0;
    let twoStarted!: () => void;
    const bothRunning = new Promise<void>((r) => { twoStarted = r; });
    gateway.run = (call) => {
      if (++started === 2) twoStarted();
      return run(call);
    };
    const running = t.services.jobs.runDue({ names: ['batch.lines'] });
    await bothRunning;
    const cancelling = await owner.post(`/openai/v1/batches/${b.id}/cancel`);
    assert.equal(cancelling.body.status, 'CANCELLING');
    assert.equal((await owner.post(`/openai/v1/batches/${b.id}/cancel`)).body.status, 'CANCELLING', 'cancelling again answers the batch as it is');
    await running;
    await runBatchJobs(t);
    const done = (await owner.get(`/openai/v1/batches/${b.id}`)).body;
    assert.equal(done.status, 'CANCELLED');
    assert.ok(done.cancelled_at);
    assert.deepEqual(done.request_counts, { total: 5, completed: 2, failed: 0 });
    assert.equal(started, 2, 'no line started after the cancel');
    const out = await fileLines(t, team.owner.apiKey, done.output_file_id);
    assert.deepEqual(out.map((o) => o.custom_id), ['r1', 'r2']);
    const errs = await fileLines(t, team.owner.apiKey, done.error_file_id);
    assert.deepEqual(errs.map((e) => [e.custom_id, e.error.code]), [['r3', 'batch_cancelled'], ['r4', 'batch_cancelled'], ['r5', 'batch_cancelled']]);
  }, { GANTRY_SIM_TTFT_MS: '300', GANTRY_BATCH_CONCURRENCY: '2' });
});

test('a batch whose key is revoked runs no further line: each is answered as the revoked key would be', async () => {
  await withApp(async (t, team) => {
    const dev = team.members.Developer;
    const file = await uploadInput(t, dev.apiKey, jsonl([chatLine(1), chatLine(2)]));
    const b = (await as(t.app, dev.apiKey).post('/openai/v1/batches', { input_file_id: file, endpoint: '/v1/chat/completions' })).body;
    await t.services.jobs.runDue({ names: ['batch.validate'] });
    const revoked = await as(t.app, dev.apiKey).post(`/openapi/v1/user/keys/${dev.keyId}/revoke`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    await runBatchJobs(t);
    const done = (await as(t.app, team.owner.apiKey).get(`/openai/v1/batches/${b.id}`)).body;
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.request_counts, { total: 2, completed: 0, failed: 2 });
    const errs = await fileLines(t, team.owner.apiKey, done.error_file_id);
    assert.deepEqual(errs.map((e) => [e.custom_id, e.response.status_code, e.response.body.reason]), [['r1', 401, 'INVALID_API_KEY'], ['r2', 401, 'INVALID_API_KEY']]);
    assert.equal((await as(t.app, t.creds.adminToken).get(`/admin/v1/teams/${team.userId}/usage`)).body.events, 0, 'nothing billed');
  });
});
