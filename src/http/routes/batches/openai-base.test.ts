// The OpenAI-flavoured base /v1: a client written for OpenAI, the official `openai` package
// with `baseURL: '<gantry>/v1'` and nothing else changed, runs the model API (the same
// handlers as /openai/v1), files (create, waitForProcessing, list pages, retrieve, content,
// delete) and batches (create with OpenAI's "24h", retrieve until `completed`, the output and
// error files, list pages, cancel) and reads OpenAI's own shapes: lower-case statuses, numeric
// timestamps, null file ids until written, `model`, `usage`, file `status`, and OpenAI's
// error object. The interface's shapes on /openai/v1 are batches.test.ts's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { until } from '../../../../test/helpers/wait.ts';
import { createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';
import { chatLine, jsonl, SMALL } from '../../../../test/helpers/batches.ts';

const FAST = { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' };
const NO_USAGE = { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 };

async function withClient(fn: (client: OpenAI, t: TestApp, team: Team) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env: FAST });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    await fn(new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/v1`, maxRetries: 0 }), t, team);
  } finally {
    await t.close();
  }
}

/**
 * Retrieve the batch until it has `status`, as a client polls. The test's clock is manual, so
 * the server's job runner does not run by itself: each look first runs the jobs that are due.
 */
async function pollUntil(t: TestApp, client: OpenAI, id: string, status: OpenAI.Batch['status']): Promise<OpenAI.Batch> {
  let batch: OpenAI.Batch | undefined;
  await until(`batch ${id} ${status}`, async () => {
    await t.services.jobs.runDue();
    batch = await client.batches.retrieve(id);
    return batch.status === status;
  });
  return batch!;
}

const lines = async (res: Response) => (await res.text()).trim().split('\n').map((l) => JSON.parse(l));

test('/v1: files and batches in OpenAI\'s shapes, driven by the official openai package', async () => {
  await withClient(async (client, t, team) => {
    // line 3 asks for more output than the model's context: answered 400 when it runs, so it goes to the error file
    const input = jsonl([chatLine(1), chatLine(2), chatLine(3, { body: { ...chatLine(3).body, max_tokens: 10_000_000 } })]);
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'in.jsonl'), purpose: 'batch' });
    const now = Math.floor(t.clock.nowMs() / 1000);
    const fileObject = {
      id: file.id, object: 'file', bytes: Buffer.byteLength(input), created_at: now, filename: 'in.jsonl', purpose: 'batch',
      status: 'processed', expires_at: now + 15 * 86_400, status_details: null,
    };
    assert.deepEqual(file as unknown, fileObject); // (as unknown: the SDK's types say optional where OpenAI answers null)
    assert.deepEqual(await client.files.waitForProcessing(file.id) as unknown, fileObject, 'a stored file is processed: the wait ends at once');
    assert.deepEqual(await client.files.retrieve(file.id) as unknown, fileObject);

    // OpenAI's only window; the interface's 48 h is applied (docs/compat-decisions.md)
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } });
    assert.deepEqual(created as unknown, {
      id: created.id, object: 'batch', endpoint: '/v1/chat/completions', model: null, errors: null, input_file_id: file.id,
      completion_window: '48h', status: 'validating', output_file_id: null, error_file_id: null, created_at: now, in_progress_at: null,
      expires_at: now + 48 * 3600, finalizing_at: null, completed_at: null, failed_at: null, expired_at: null, cancelling_at: null,
      cancelled_at: null, request_counts: { total: 3, completed: 0, failed: 0 }, metadata: { job: 'nightly' }, usage: NO_USAGE,
    });

    const done = await pollUntil(t, client, created.id, 'completed');
    assert.equal(done.model, SMALL);
    assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
    for (const at of [done.in_progress_at, done.finalizing_at, done.completed_at]) assert.equal(typeof at, 'number');
    assert.equal(done.errors, null);
    const output = await lines(await client.files.content(done.output_file_id!));
    assert.deepEqual(output.map((o) => [o.custom_id, o.response.status_code, o.response.body.object]), [['r1', 200, 'chat.completion'], ['r2', 200, 'chat.completion']]);
    const errorLines = await lines(await client.files.content(done.error_file_id!));
    assert.deepEqual(errorLines.map((e) => [e.custom_id, e.response.status_code, e.response.body.error.type]), [['r3', 400, 'invalid_request_error']]);
    // usage: the answered lines' tokens, summed
    const sum = (read: (u: any) => number | undefined) => output.reduce((n, o) => n + (read(o.response.body.usage) ?? 0), 0);
    const [inTokens, outTokens] = [sum((u) => u.prompt_tokens), sum((u) => u.completion_tokens)];
    assert.ok(inTokens > 0 && outTokens > 0);
    assert.deepEqual(done.usage, {
      input_tokens: inTokens, input_tokens_details: { cached_tokens: sum((u) => u.prompt_tokens_details?.cached_tokens) },
      output_tokens: outTokens, output_tokens_details: { reasoning_tokens: sum((u) => u.completion_tokens_details?.reasoning_tokens) },
      total_tokens: inTokens + outTokens,
    });
    const outFile = await client.files.retrieve(done.output_file_id!);
    assert.equal(outFile.purpose, 'batch_output');
    assert.equal(outFile.status, 'processed');

    // cancel: once validated, before its lines run (only the validation's job is run here)
    t.clock.advance(1000);
    const other = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await t.services.jobs.runDue({ names: ['batch.validate'] });
    assert.equal((await client.batches.retrieve(other.id)).status, 'in_progress');
    const cancelling = await client.batches.cancel(other.id);
    assert.equal(cancelling.status, 'cancelling');
    assert.equal(cancelling.cancelling_at, Math.floor(t.clock.nowMs() / 1000));
    const cancelled = await pollUntil(t, client, other.id, 'cancelled');
    assert.equal(typeof cancelled.cancelled_at, 'number');
    assert.equal(cancelled.output_file_id, null, 'no line was answered: no output file');
    assert.deepEqual((await lines(await client.files.content(cancelled.error_file_id!))).map((e) => e.error.code), ['batch_cancelled', 'batch_cancelled', 'batch_cancelled']);

    // list pages of one, newest first, through `after`
    const listed: string[] = [];
    for await (const b of client.batches.list({ limit: 1 })) listed.push(b.id);
    assert.deepEqual(listed, [other.id, created.id]);
    const page = await as(t.app, team.owner.apiKey).get('/v1/batches', { limit: 1 });
    assert.deepEqual(Object.keys(page.body).sort(), ['data', 'first_id', 'has_more', 'last_id', 'object']);
    assert.equal(page.body.has_more, true);

    // files: list pages of one (OpenAI's list, no interface members): the input, and the output and error files
    const files: string[] = [];
    for await (const f of client.files.list({ limit: 1 })) files.push(f.id);
    assert.deepEqual(files.sort(), [file.id, done.output_file_id!, done.error_file_id!, cancelled.error_file_id!].sort());
    const filePage = await as(t.app, team.owner.apiKey).get('/v1/files', { purpose: 'batch' });
    assert.deepEqual(Object.keys(filePage.body).sort(), ['data', 'first_id', 'has_more', 'last_id', 'object']);
    assert.deepEqual(filePage.body.data, [fileObject]);
    assert.deepEqual(await client.files.delete(file.id), { id: file.id, object: 'file', deleted: true });
    await assert.rejects(client.files.retrieve(file.id), (e: unknown) => e instanceof OpenAI.NotFoundError && e.code === 'file_not_found');
  });
});

test('/v1: a batch whose file fails validation carries OpenAI\'s errors list; errors are OpenAI\'s error object', async () => {
  await withClient(async (client, t, team) => {
    const bad = jsonl([chatLine(1), chatLine(1), { body: chatLine(2).body }]);
    const file = await client.files.create({ file: await toFile(Buffer.from(bad), 'bad.jsonl'), purpose: 'batch' });
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const failed = await pollUntil(t, client, created.id, 'failed');
    assert.equal(typeof failed.failed_at, 'number');
    assert.deepEqual(failed.errors, {
      object: 'list', data: [
        { code: 'duplicate_custom_id', message: 'line 2: custom_id "r1" is used by an earlier line; each must be unique', param: 'custom_id', line: 2 },
        { code: 'missing_required_parameter', message: 'line 3: custom_id is required (a non-empty string)', param: 'custom_id', line: 3 },
      ],
    });
    assert.equal(failed.output_file_id, null);
    assert.equal(failed.error_file_id, null);

    // refusals: OpenAI's error object (and its SDK's error classes), the llm family's reasons
    const missing = await client.batches.retrieve('batch_nothere').catch((e: unknown) => e);
    assert.ok(missing instanceof OpenAI.NotFoundError);
    assert.equal(missing.code, 'batch_not_found');
    assert.equal(missing.type, 'invalid_request_error');
    const badWindow = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '1h' as '24h' }).catch((e: unknown) => e);
    assert.ok(badWindow instanceof OpenAI.BadRequestError);
    assert.equal(badWindow.param, 'completion_window');
    const stranger = new OpenAI({ apiKey: 'sk_not_a_key', baseURL: client.baseURL, maxRetries: 0 });
    await assert.rejects(stranger.batches.list(), (e: unknown) => e instanceof OpenAI.AuthenticationError);
    const billing = new OpenAI({ apiKey: team.members.Billing.apiKey, baseURL: client.baseURL, maxRetries: 0 });
    await assert.rejects(billing.files.list(), (e: unknown) => e instanceof OpenAI.PermissionDeniedError, 'the Billing role calls no models, on /v1 as on /openai/v1');
    const unknown = await as(t.app, team.owner.apiKey).get('/v1/no-such-thing');
    assert.equal(unknown.status, 404);
    assert.equal(typeof unknown.body.error?.message, 'string', 'an unknown path under /v1 answers OpenAI\'s error object too');
  });
});

test('/v1: the model API is the /openai/v1 handlers (models, chat, completions, embeddings, responses), billed alike', async () => {
  await withClient(async (client, t, team) => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    assert.deepEqual(ids.sort(), ['gantry/sim-chat-large', 'gantry/sim-chat-small', 'gantry/sim-embed']);
    assert.equal((await client.models.retrieve(SMALL)).id, SMALL);
    const messages = [{ role: 'user' as const, content: 'Say something about gardens.' }];
    const chat = await client.chat.completions.create({ model: SMALL, messages, max_tokens: 20 });
    const same = await as(t.app, team.owner.apiKey).post('/openai/v1/chat/completions', { model: SMALL, messages, max_tokens: 20 });
    assert.equal(chat.choices[0]!.message.content, same.body.choices[0].message.content, 'the same model, the same answer');
    let streamed = '';
    for await (const c of await client.chat.completions.create({ model: SMALL, messages, max_tokens: 20, stream: true })) streamed += c.choices[0]?.delta?.content ?? '';
    assert.equal(streamed, chat.choices[0]!.message.content);
    assert.equal((await client.completions.create({ model: SMALL, prompt: 'Once upon a time', max_tokens: 8 })).object, 'text_completion');
    assert.equal((await client.embeddings.create({ model: 'gantry/sim-embed', input: 'river stone' })).data.length, 1);
    const response = await client.responses.create({ model: SMALL, input: 'Say something about rivers.', max_output_tokens: 20 });
    assert.equal(response.object, 'response');
    assert.ok(response.output_text.length > 0);
    assert.equal((await client.responses.retrieve(response.id)).id, response.id);
    await assert.rejects(client.chat.completions.create({ model: 'no/such-model', messages }), (e: unknown) => e instanceof OpenAI.NotFoundError);
    // each call is one usage event of the team, as on /openai/v1
    const usage = (await as(t.app, t.creds.adminToken).get(`/admin/v1/teams/${team.userId}/usage`)).body;
    assert.equal(usage.events, 6, JSON.stringify(usage));
  });
});
