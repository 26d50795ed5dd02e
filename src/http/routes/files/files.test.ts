// The Files API through HTTP: the official openai package end to end, the shapes of
// compat.md, input checks that leave nothing behind, team scoping, expiry by the job, and
// signed blob links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import OpenAI, { toFile } from 'openai';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';
import { multipart, type FormPart } from '../../../../test/helpers/multipart.ts';
import { sweepFiles } from '../../../domain/files/files.ts';

const line = (i: number) => JSON.stringify({ custom_id: `r${i}`, body: { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `hi ${i}` }] } });
const jsonl = (n: number) => Array.from({ length: n }, (_, i) => line(i)).join('\n') + '\n';

async function upload(t: TestApp, key: string, parts: FormPart[], base = '/openai/v1') {
  const { payload, headers } = await multipart(parts);
  const res = await t.app.inject({ method: 'POST', url: `${base}/files`, headers: { ...headers, authorization: `Bearer ${key}` }, payload });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

/** Blob files on disk (temporary ones included): what a failed upload must not leave. */
function blobFiles(t: TestApp): string[] {
  return (readdirSync(t.config.blobs.dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((d) => d.isFile()).map((d) => d.name);
}

async function withApp(env: Record<string, string>, fn: (t: TestApp, team: Team) => Promise<void>): Promise<void> {
  const t = await buildTestApp({ env });
  try {
    await fn(t, await createTeam(t.app, t.creds.adminToken));
  } finally {
    await t.close();
  }
}

test('the official openai package: create, list, retrieve, content, delete', async () => {
  await withApp({}, async (t, team) => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });
    const body = jsonl(3);
    const created = await client.files.create({ file: await toFile(Buffer.from(body), 'input.jsonl'), purpose: 'batch' });
    assert.match(created.id, /^file_/);
    const now = Math.floor(t.clock.nowMs() / 1000);
    assert.deepEqual(created, {
      id: created.id, object: 'file', bytes: Buffer.byteLength(body), created_at: now, filename: 'input.jsonl', purpose: 'batch',
      expires_at: now + 15 * 86_400, metadata: { total_requests: 3 },
    });
    t.clock.advance(1000); // ids sort by time
    const second = await client.files.create({ file: await toFile(Buffer.from(jsonl(1)), 'two.jsonl'), purpose: 'batch' });

    const listed: string[] = [];
    for await (const f of client.files.list({ limit: 1 })) listed.push(f.id); // pages of one, by `after`
    assert.deepEqual(listed, [second.id, created.id]);
    assert.deepEqual(await client.files.retrieve(created.id), created);
    assert.equal(await (await client.files.content(created.id)).text(), body);

    // another base alias serves the same files
    const viaV3 = new OpenAI({ apiKey: team.members.Developer.apiKey, baseURL: `${address}/v3/openai`, maxRetries: 0 });
    assert.equal((await viaV3.files.retrieve(created.id)).id, created.id, "every key of the team sees the team's files");

    assert.deepEqual(await client.files.delete(created.id), { id: created.id, object: 'file', deleted: true });
    await assert.rejects(client.files.retrieve(created.id), (e: unknown) => e instanceof OpenAI.NotFoundError);
    await assert.rejects(client.files.content(created.id), (e: unknown) => e instanceof OpenAI.NotFoundError);
    assert.equal(blobFiles(t).length, 1, "the deleted file's bytes are gone, the other's stay");
  });
});

test('list: {code, message, data} with OpenAI paging; purpose filter and order', async () => {
  await withApp({}, async (t, team) => {
    const a = (await upload(t, team.owner.apiKey, [['purpose', 'batch'], ['file', { filename: 'a.jsonl', content: jsonl(2) }]])).body;
    t.clock.advance(1000);
    const b = (await upload(t, team.owner.apiKey, [['file', { filename: 'b.jsonl', content: jsonl(1) }], ['purpose', 'batch']])).body;
    const owner = as(t.app, team.owner.apiKey);
    const all = await owner.get('/openai/v1/files');
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body).sort(), ['code', 'data', 'first_id', 'has_more', 'last_id', 'message', 'object']);
    assert.equal(all.body.code, '200');
    assert.deepEqual(all.body.data.map((f: any) => f.id), [b.id, a.id]);
    assert.deepEqual(Object.keys(all.body.data[0]).sort(), ['bytes', 'created_at', 'expires_at', 'filename', 'id', 'metadata', 'object', 'purpose']);
    const asc = await owner.get('/openai/v1/files', { order: 'asc', limit: 1 });
    assert.deepEqual(asc.body.data.map((f: any) => f.id), [a.id]);
    assert.equal(asc.body.has_more, true);
    const next = await owner.get('/openai/v1/files', { order: 'asc', limit: 1, after: a.id });
    assert.deepEqual(next.body.data.map((f: any) => f.id), [b.id]);
    assert.equal(next.body.has_more, false);
    assert.deepEqual((await owner.get('/openai/v1/files', { purpose: 'batch_output' })).body.data, []);
    assert.equal((await owner.get('/openai/v1/files', { purpose: 'fine-tune' })).status, 400);
  });
});

test('bad uploads: 400 naming the rule, and nothing of them is kept', async () => {
  await withApp({ GANTRY_FILE_MAX_LINES: '3', GANTRY_FILE_MAX_MB: '0.01' }, async (t, team) => {
    const key = team.owner.apiKey;
    const file = (content: string, filename = 'in.jsonl'): FormPart => ['file', { filename, content }];
    const cases: { parts: FormPart[]; field: string; rule: string | RegExp; message: RegExp }[] = [
      { parts: [['purpose', 'batch']], field: 'file', rule: /required/, message: /file: required/ },
      { parts: [file(jsonl(1))], field: 'purpose', rule: /required/, message: /purpose: required/ },
      { parts: [['purpose', 'fine-tune'], file(jsonl(1))], field: 'purpose', rule: /must be one of batch/, message: /purpose/ },
      { parts: [file(jsonl(1)), ['purpose', 'assistants']], field: 'purpose', rule: /must be one of batch/, message: /purpose/ },
      { parts: [file(`${line(1)}\n{"custom_id": "r2", "body": \n${line(3)}\n`), ['purpose', 'batch']], field: 'file', rule: 'jsonl', message: /line 2 is not valid JSON/ },
      { parts: [file(`${line(1)}\n[1,2]\n`), ['purpose', 'batch']], field: 'file', rule: 'jsonl', message: /line 2 must be a JSON object/ },
      { parts: [file(`${line(1)}\n{"custom_id":"r2","body":{"model":"m","x":${'['.repeat(127)}${']'.repeat(127)}}}\n`), ['purpose', 'batch']], field: 'file', rule: 'max_depth', message: /line 2 nests arrays and objects deeper than 128 levels/ },
      { parts: [file(jsonl(4)), ['purpose', 'batch']], field: 'file', rule: 'max_lines', message: /at most 3 requests/ },
      { parts: [file(`${line(1)}\n${'x'.repeat(11_000)}\n`), ['purpose', 'batch']], field: 'file', rule: 'max_bytes', message: /at most 10485 bytes/ },
      { parts: [file('\n\n  \n'), ['purpose', 'batch']], field: 'file', rule: 'not_empty', message: /no requests/ },
      { parts: [file(jsonl(1)), file(jsonl(1)), ['purpose', 'batch']], field: 'file', rule: /one file/, message: /one file per upload/ },
      { parts: [['purpose', 'batch'], ['document', { filename: 'x', content: jsonl(1) }]], field: 'document', rule: /field named file/, message: /document/ },
    ];
    for (const [i, c] of cases.entries()) {
      const r = await upload(t, key, c.parts);
      assert.equal(r.status, 400, `case ${i}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'INVALID_REQUEST_BODY', `case ${i}`);
      assert.equal(r.body.metadata.field, c.field, `case ${i}`);
      if (typeof c.rule === 'string') assert.equal(r.body.metadata.rule, c.rule, `case ${i}`);
      else assert.match(r.body.metadata.rule, c.rule, `case ${i}`);
      assert.match(r.body.message, c.message, `case ${i}`);
      assert.equal(r.body.error.type, 'invalid_request_error', `case ${i}: the OpenAI error member`);
    }
    const json = await t.app.inject({ method: 'POST', url: '/openai/v1/files', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{"purpose":"batch"}' });
    assert.equal(json.statusCode, 415);
    const broken = await t.app.inject({ method: 'POST', url: '/openai/v1/files', headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n{"a":1}' });
    assert.equal(broken.statusCode, 400, broken.body);
    assert.deepEqual(blobFiles(t), [], 'no blob and no temporary file is left');
    assert.deepEqual((await as(t.app, key).get('/openai/v1/files')).body.data, [], 'no record is left');
    const ok = await upload(t, key, [file(`\n${line(1)}\r\n\n${line(2)}`), ['purpose', 'batch']]);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.metadata.total_requests, 2, 'blank lines are not requests; CRLF and a last line without newline are fine');
  });
});

test("only the team's keys see a file: another team's id is 404 everywhere", async () => {
  await withApp({}, async (t, team) => {
    const other = await createTeam(t.app, t.creds.adminToken);
    const f = (await upload(t, team.owner.apiKey, [['purpose', 'batch'], ['file', { filename: 'a.jsonl', content: jsonl(1) }]])).body;
    const them = as(t.app, other.owner.apiKey);
    for (const r of [await them.get(`/openai/v1/files/${f.id}`), await them.get(`/openai/v1/files/${f.id}/content`), await them.delete(`/openai/v1/files/${f.id}`)]) {
      assert.equal(r.status, 404);
      assert.equal(r.body.reason, 'FILE_NOT_FOUND');
      assert.equal(r.body.error.code, 'file_not_found');
    }
    assert.deepEqual((await them.get('/openai/v1/files')).body.data, []);
    assert.equal((await as(t.app, team.owner.apiKey).get(`/openai/v1/files/${f.id}`)).status, 200, 'still there for its team');
    assert.equal((await as(t.app, 'sk_nope').get('/openai/v1/files')).status, 401);
  });
});

test('files expire after 15 days: hidden at once, then removed by the files.expire job', async () => {
  await withApp({}, async (t, team) => {
    const owner = as(t.app, team.owner.apiKey);
    const f = (await upload(t, team.owner.apiKey, [['purpose', 'batch'], ['file', { filename: 'a.jsonl', content: jsonl(1) }]])).body;
    assert.equal(f.expires_at - f.created_at, 15 * 86_400);
    t.clock.advance(15 * 86_400_000 - 1000);
    await t.services.jobs.runNow('files.expire');
    assert.equal((await owner.get(`/openai/v1/files/${f.id}`)).status, 200, 'not yet');
    t.clock.advance(1000);
    assert.equal((await owner.get(`/openai/v1/files/${f.id}`)).status, 404, 'hidden from the second it expires');
    assert.equal(blobFiles(t).length, 1);
    assert.equal(await sweepFiles(t.services.files), 1);
    assert.deepEqual(blobFiles(t), [], 'its bytes are removed by the sweep');
    assert.equal(await sweepFiles(t.services.files), 0, 'a second sweep finds nothing');
  });
});

test('signed blob links: stream the blob (ranges too) until they expire; a changed link is refused', async () => {
  await withApp({}, async (t) => {
    const { store, links } = t.services.blobs;
    await store.put('media/usr_x/sample.bin', (async function* () { yield Buffer.from('0123456789'); })());
    const url = new URL(links.url('media/usr_x/sample.bin', 60));
    const path = url.pathname + url.search;
    const whole = await t.app.inject({ method: 'GET', url: path });
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.body, '0123456789');
    assert.equal(whole.headers['content-length'], '10');
    const part = await t.app.inject({ method: 'GET', url: path, headers: { range: 'bytes=3-5' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.body, '345');
    assert.equal(part.headers['content-range'], 'bytes 3-5/10');
    const tampered = await t.app.inject({ method: 'GET', url: path.replace('sample.bin', 'other.bin') });
    assert.equal(tampered.statusCode, 403);
    assert.equal(JSON.parse(tampered.body).metadata.rule, 'invalid');
    t.clock.advance(60_000);
    const late = await t.app.inject({ method: 'GET', url: path });
    assert.equal(late.statusCode, 403);
    assert.equal(JSON.parse(late.body).metadata.rule, 'expired');
  });
});
