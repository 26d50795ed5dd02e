// Per-team storage quotas through HTTP (issue 29): files and media model uploads are refused
// with 403 STORAGE_QUOTA_EXCEEDED before their bytes are kept (from the declared length,
// while streaming, or at the final check), concurrent uploads never pass a quota together,
// deleting frees quota, and the operator sets the quotas per team (admin API and CLI) while
// the team reads its usage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, type Dirent } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { as } from '../../../test/helpers/http.ts';
import { createTeam, type Team } from '../../../test/helpers/factories.ts';
import { multipart, type FormPart } from '../../../test/helpers/multipart.ts';
import { uploadModel } from '../../../test/helpers/media.ts';
import { toRequest } from '../../cli/admin.ts';
import { writeOutputFile } from '../files/files.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

/** A batch input file of exactly `bytes` bytes (one JSON object per line). */
function jsonl(bytes: number): string {
  const line = (pad: number) => `${JSON.stringify({ custom_id: 'r', body: { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'x'.repeat(pad) }] } })}\n`;
  const base = line(0).length;
  assert.ok(bytes >= base);
  return line(bytes - base);
}

const fileParts = (content: string): FormPart[] => [['purpose', 'batch'], ['file', { filename: 'in.jsonl', content }]];

async function uploadFile(team: Team, content: string, opts: { chunked?: boolean } = {}) {
  const { payload, headers } = await multipart(fileParts(content));
  const res = await t.app.inject({
    method: 'POST', url: '/openai/v1/files', headers: { ...headers, authorization: `Bearer ${team.owner.apiKey}` },
    // a stream has no Content-Length: the quota is met while it streams and at the final check
    payload: opts.chunked ? Readable.from([payload.subarray(0, 100), payload.subarray(100)]) : payload,
  });
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
}

/** The team's blobs on disk (temporary files included): what a refused upload must not leave. */
function blobs(prefix: string): string[] {
  return (readdirSync(t.config.blobs.dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((d) => d.isFile() && (d.parentPath ?? '').includes(prefix)).map((d) => d.name);
}

async function setQuota(team: Team, body: Record<string, number | null>) {
  const r = await as(t.app, t.creds.adminToken).put(`/admin/v1/teams/${team.userId}/storage-quota`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

const storage = async (team: Team) => (await as(t.app, team.owner.apiKey).get('/openapi/v1/user/storage')).body;

function assertRefused(r: { status: number; body: any }, quota: string, where: string): void {
  assert.equal(r.status, 403, `${where}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.reason, 'STORAGE_QUOTA_EXCEEDED', where);
  assert.equal(r.body.metadata.rule, 'storage_quota', where);
  assert.equal(r.body.metadata.quota, quota, where);
}

test('defaults, the team\'s read, and the operator\'s overrides (null restores the default)', async () => {
  const team = await createTeam(t.app, t.creds.adminToken);
  const fresh = await storage(team);
  assert.deepEqual(fresh, {
    files: { usedBytes: 0, usedCount: 0, maxBytes: 10 * 2 ** 30, maxCount: 1000 },
    media: { usedBytes: 0, usedCount: 0, maxBytes: 50 * 2 ** 30, maxCount: 100 },
    overrides: { filesMaxBytes: null, filesMaxCount: null, mediaMaxBytes: null, mediaMaxCount: null },
  });
  const set = await setQuota(team, { filesMaxBytes: 5000, mediaMaxCount: 3 });
  assert.equal(set.files.maxBytes, 5000);
  assert.equal(set.files.maxCount, 1000, 'a field not given keeps its value');
  assert.equal(set.media.maxCount, 3);
  assert.deepEqual(set.overrides, { filesMaxBytes: 5000, filesMaxCount: null, mediaMaxBytes: null, mediaMaxCount: 3 });
  const admin = as(t.app, t.creds.adminToken);
  assert.deepEqual((await admin.get(`/admin/v1/teams/${team.userId}/storage`)).body, set);
  const back = await setQuota(team, { filesMaxBytes: null });
  assert.equal(back.files.maxBytes, 10 * 2 ** 30);
  assert.equal(back.media.maxCount, 3);
  const r = await admin.post(`/admin/v1/teams/${team.userId}/storage-quota`, { filesMaxCount: -1 });
  assert.equal(r.status, 400);
  assert.equal(r.body.metadata.field, 'filesMaxCount');
  assert.equal((await admin.put('/admin/v1/teams/usr_nope/storage-quota', { filesMaxCount: 1 })).status, 404);
  assert.equal((await admin.get('/admin/v1/teams/usr_nope/storage')).status, 404);
  // every role may read its team's storage; the operator's routes are the operator's
  assert.equal((await as(t.app, team.members.Billing.apiKey).get('/openapi/v1/user/storage')).status, 200);
  assert.equal((await as(t.app, team.owner.apiKey).get(`/admin/v1/teams/${team.userId}/storage`)).status, 401);
});

test('files: the count quota refuses the next upload, deleting a file frees it, nothing of a refusal is kept', async () => {
  const team = await createTeam(t.app, t.creds.adminToken);
  await setQuota(team, { filesMaxCount: 2 });
  const a = await uploadFile(team, jsonl(200));
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.equal((await uploadFile(team, jsonl(200))).status, 200);
  const refused = await uploadFile(team, jsonl(200));
  assertRefused(refused, 'files.count', 'third file');
  assert.equal(refused.body.error.type, 'invalid_request_error', 'the OpenAI error member');
  assert.match(refused.body.message, /stores 2 files, its quota is 2/);
  assert.equal(blobs(team.userId).length, 2);
  assert.equal((await as(t.app, team.owner.apiKey).delete(`/openai/v1/files/${a.body.id}`)).status, 200);
  assert.equal((await uploadFile(team, jsonl(200))).status, 200, 'a deleted file no longer counts');
  const used = await storage(team);
  assert.deepEqual([used.files.usedCount, used.files.usedBytes], [2, 400]);
});

test('files: a declared body larger than what is left is refused before it is read; one that streams past it, as it passes', async () => {
  const team = await createTeam(t.app, t.creds.adminToken);
  await setQuota(team, { filesMaxBytes: 3000 });
  assert.equal((await uploadFile(team, jsonl(2000))).status, 200);

  // declared 10 MB, of which the server reads nothing: it answers while the body is still open
  const body = new PassThrough();
  const { headers } = await multipart(fileParts('x'));
  body.write('--');
  const pending = t.app.inject({
    method: 'POST', url: '/openai/v1/files', payload: body,
    headers: { ...headers, authorization: `Bearer ${team.owner.apiKey}`, 'content-length': String(10_000_000) },
  });
  const early = await pending;
  body.destroy();
  assertRefused({ status: early.statusCode, body: JSON.parse(early.body) }, 'files.bytes', 'declared');
  assert.equal(early.headers.connection, 'close', 'a large unread body is not drained: the connection closes');
  assert.equal(JSON.parse(early.body).metadata.requested, 10_000_000);

  // within the declared allowance (the multipart framing) but past the quota: refused as it streams
  const over = await uploadFile(team, jsonl(1500));
  assertRefused(over, 'files.bytes', 'streamed');
  assert.equal(over.body.metadata.room, 1000);
  const chunked = await uploadFile(team, jsonl(1500), { chunked: true });
  assertRefused(chunked, 'files.bytes', 'chunked');
  assert.equal(blobs(team.userId).length, 1, 'no byte of the refused uploads is kept');
  assert.deepEqual(blobs('.tmp'), [], 'nor a temporary file');
  const used = await storage(team);
  assert.deepEqual([used.files.usedCount, used.files.usedBytes], [1, 2000], 'no record either');
  assert.equal((await uploadFile(team, jsonl(1000))).status, 200, 'what is left still fits');
});

for (const chunked of [false, true]) {
  test(`files: 10 uploads at once never pass the quota together (${chunked ? 'no Content-Length: the final check' : 'declared lengths: the reservations'})`, async () => {
    const team = await createTeam(t.app, t.creds.adminToken);
    await setQuota(team, { filesMaxBytes: 5000 });
    const results = await Promise.all(Array.from({ length: 10 }, () => uploadFile(team, jsonl(1500), { chunked })));
    const ok = results.filter((r) => r.status === 200);
    for (const r of results.filter((x) => x.status !== 200)) assertRefused(r, 'files.bytes', 'concurrent');
    const used = await storage(team);
    assert.ok(used.files.usedBytes <= 5000, `stored ${used.files.usedBytes} bytes`);
    assert.equal(used.files.usedBytes, ok.length * 1500);
    assert.equal(blobs(team.userId).length, ok.length, 'only the accepted uploads left bytes');
    assert.deepEqual(blobs('.tmp'), []);
    if (chunked) assert.equal(ok.length, 3, 'all of them streamed; the final check let in as many as fit');
    else assert.ok(ok.length >= 2, `accepted ${ok.length}`);
  });
}

test('files: 10 uploads at once never pass the count quota together', async () => {
  const team = await createTeam(t.app, t.creds.adminToken);
  await setQuota(team, { filesMaxCount: 4 });
  const results = await Promise.all(Array.from({ length: 10 }, () => uploadFile(team, jsonl(300))));
  assert.equal(results.filter((r) => r.status === 200).length, 4);
  for (const r of results.filter((x) => x.status !== 200)) assertRefused(r, 'files.count', 'concurrent');
});

test('files: batch outputs count against the quota but are never refused; an expired file no longer counts', async () => {
  const team = await createTeam(t.app, t.creds.adminToken);
  await setQuota(team, { filesMaxCount: 1 });
  assert.equal((await uploadFile(team, jsonl(300))).status, 200);
  const owner = { teamId: team.userId, memberId: team.owner.memberId, keyId: team.owner.keyId };
  const out = await writeOutputFile(t.services.files, owner, 'output.jsonl', Readable.from([Buffer.from('{"a":1}\n')]));
  assert.equal(await out.ready(t.store.db), true, 'written past the quota: the batch that made it was paid for');
  const used = await storage(team);
  assert.deepEqual([used.files.usedCount, used.files.usedBytes], [2, 308]);
  assertRefused(await uploadFile(team, jsonl(300)), 'files.count', 'over the quota by an output');
  t.clock.advance(15 * 86_400_000);
  assert.equal((await storage(team)).files.usedCount, 0, 'expired files are gone for the team, and for its quota');
  assert.equal((await uploadFile(team, jsonl(300))).status, 200);
});

test('media: count and byte quotas, concurrent uploads, deleting frees the quota', async () => {
  const team = await createTeam(t.app, t.creds.adminToken);
  const key = team.owner.apiKey;
  await setQuota(team, { mediaMaxCount: 1 });
  const first = await uploadModel(t, key, { type: 'lora', sd_name: 'a.safetensors' }, Buffer.alloc(1000, 1));
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const second = await uploadModel(t, key, { type: 'lora', sd_name: 'b.safetensors' }, Buffer.alloc(1000, 2));
  assertRefused(second, 'media.count', 'second model');
  const listed = (await as(t.app, key).get('/v3/model', { 'filter.visibility': 'private' })).body.models;
  assert.deepEqual(listed.map((m: any) => m.sd_name), ['a.safetensors'], 'the refused upload left no record');
  assert.equal((await as(t.app, key).delete(`/v3/model/${first.body.id}`)).status, 200);
  assert.equal((await storage(team)).media.usedCount, 0);

  await setQuota(team, { mediaMaxCount: null, mediaMaxBytes: 2500 });
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) => uploadModel(t, key, { type: 'lora', sd_name: `m${i}.safetensors` }, Buffer.alloc(1000, i))));
  const ok = results.filter((r) => r.status === 200);
  for (const r of results.filter((x) => x.status !== 200)) assertRefused(r, 'media.bytes', 'concurrent media');
  const used = await storage(team);
  assert.ok(used.media.usedBytes <= 2500, `stored ${used.media.usedBytes}`);
  assert.equal(used.media.usedBytes, ok.length * 1000);
  assert.equal(used.media.usedCount, ok.length);
  assert.ok(ok.length >= 1);
});

test('CLI: gantry admin storage maps to the operator API', () => {
  assert.deepEqual(toRequest(['storage', 'usr_1']), { method: 'GET', path: '/admin/v1/teams/usr_1/storage' });
  assert.deepEqual(toRequest(['storage', 'usr_1', 'set', '--files-gb', '20', '--media-count', '500', '--media-gb', 'default']), {
    method: 'PUT', path: '/admin/v1/teams/usr_1/storage-quota', body: { filesMaxBytes: 20 * 2 ** 30, mediaMaxCount: 500, mediaMaxBytes: null },
  });
  assert.deepEqual(toRequest(['storage', 'usr_1', 'set', '--files-gb', '0.5']).body, { filesMaxBytes: 2 ** 29 });
  assert.throws(() => toRequest(['storage', 'usr_1', 'set']), /give at least one/);
  assert.throws(() => toRequest(['storage', 'usr_1', 'set', '--files-count', 'lots']), /takes a number or default/);
});
