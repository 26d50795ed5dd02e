// The JSON body reader: Fastify's limits and answers, and big bodies collected in blocks of
// their own (no join on the main thread), whole and in order whatever the chunks' sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { buildTestApp } from '../../test/helpers/app.ts';
import { BIG_BYTES, readJsonBody, type BodyRead } from './json-body.ts';

const MiB = 1024 * 1024;

/** Writes `bytes` into a fresh stream in chunks of `step` bytes and reads it with `readJsonBody`. */
function read(bytes: Buffer, opts: { limit?: number; contentLength?: number; step?: number; fail?: Error } = {}): Promise<BodyRead> {
  const s = new PassThrough();
  const out = new Promise<BodyRead>((resolve) => readJsonBody(s, opts.limit ?? 8 * MiB, opts.contentLength ?? Number.NaN, resolve));
  const step = opts.step ?? 64 * 1024;
  for (let at = 0; at < bytes.length; at += step) s.write(bytes.subarray(at, at + step));
  if (opts.fail) s.destroy(opts.fail);
  else s.end();
  return out;
}

const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 251));

test('a small body comes whole, as text, from one chunk or from many that cut through its characters', async () => {
  const text = 'é🦊x'.repeat(Math.floor((BIG_BYTES - 1) / 7)); // 7 bytes a repeat, under BIG_BYTES
  const body = Buffer.from(text);
  const many = await read(body, { step: 10_000 });
  assert.ok('text' in many);
  assert.equal(many.text, text);
  const one = await read(body, { step: body.length });
  assert.ok('text' in one);
  assert.equal(one.text, text);
});

test('a big body of known length is one block owning its memory; of unknown length, blocks of 1 MiB in order', async () => {
  const body = pattern(3 * MiB + 12_345);
  const known = await read(body, { contentLength: body.length, step: 65_521 });
  assert.ok('blocks' in known);
  assert.equal(known.blocks.length, 1);
  assert.equal(known.blocks[0]!.length, body.length);
  assert.equal(known.blocks[0]!.byteOffset, 0);
  assert.equal(known.blocks[0]!.buffer.byteLength, body.length, 'the block is all of its memory: moving it moves nothing else');
  assert.ok(known.blocks[0]!.equals(body));

  const chunked = await read(body, { step: 65_521 });
  assert.ok('blocks' in chunked);
  assert.deepEqual(chunked.blocks.map((b) => b.length), [MiB, MiB, MiB, 12_345]);
  assert.ok(chunked.blocks.every((b) => b.byteOffset === 0 && b.buffer.byteLength === MiB));
  assert.ok(Buffer.concat(chunked.blocks).equals(body));
});

test('Fastify\'s answers: 413 past the limit (declared or counted), 400 when the body ends short of its content-length or fails', async () => {
  const body = pattern(2 * MiB);
  const declared = await read(body, { limit: MiB, contentLength: body.length });
  assert.ok('error' in declared);
  assert.equal((declared.error as { code?: string }).code, 'FST_ERR_CTP_BODY_TOO_LARGE');
  assert.equal(declared.error.statusCode, 413);
  const counted = await read(body, { limit: MiB + 1 });
  assert.ok('error' in counted);
  assert.equal((counted.error as { code?: string }).code, 'FST_ERR_CTP_BODY_TOO_LARGE');
  for (const size of [1000, 2 * MiB]) {
    const short = await read(pattern(size), { contentLength: size + 1 });
    assert.ok('error' in short);
    assert.equal((short.error as { code?: string }).code, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', `${size} bytes`);
    assert.equal(short.error.statusCode, 400);
  }
  const failed = await read(body, { fail: new Error('aborted') });
  assert.ok('error' in failed);
  assert.equal(failed.error.message, 'aborted');
  assert.equal(failed.error.statusCode, 400);
});

test('a big chunked body whose characters straddle chunks and blocks reads as the same prompt as one sent whole', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  try {
    const tpm = await t.app.inject({ method: 'PUT', url: `/admin/v1/teams/${t.creds.userId}/quotas`, headers: { authorization: `Bearer ${t.creds.adminToken}`, 'content-type': 'application/json' }, payload: { model: 'gantry/sim-chat-large', quotaType: 'TPM', currentQuota: '100000000' } });
    assert.equal(tpm.statusCode, 200, tpm.body);
    // ~2.3 MB of long words, each ending in a 4-byte and a 2-byte character: chunks of 7,777
    // bytes cut through some of them, and the first of the body's three 1 MiB blocks ends inside
    // a 🦊 (both checked: the worker must join blocks before it decodes them)
    const words = Array.from({ length: 11_000 }, (_, i) => `${'x'.repeat(200)}${i}🦊é`).join(' ');
    const chat = (content: string) => Buffer.from(JSON.stringify({ model: 'gantry/sim-chat-large', messages: [{ role: 'user', content }], max_tokens: 8 }));
    const contentAt = chat('').indexOf('"content":"') + '"content":"'.length;
    const body = chat(`${'y'.repeat(MiB - 1 - contentAt)}🦊 ${words}`);
    assert.ok(body.length > 2 * MiB);
    assert.equal(body[MiB]! & 0xc0, 0x80, 'the first block ends inside a character');
    let split = 0;
    for (let at = 7_777; at < body.length; at += 7_777) if ((body[at]! & 0xc0) === 0x80) split++;
    assert.ok(split > 0, 'some chunk begins inside a character');
    const headers = { authorization: `Bearer ${t.creds.apiKey}`, 'content-type': 'application/json' };
    const whole = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers, payload: body });
    assert.equal(whole.statusCode, 200, whole.body.slice(0, 300));
    const chunks = function* () {
      for (let at = 0; at < body.length; at += 7_777) yield body.subarray(at, at + 7_777);
    };
    const streamed = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers, payload: Readable.from(chunks()) });
    assert.equal(streamed.statusCode, 200, streamed.body.slice(0, 300));
    const answer = (b: string) => {
      const j = JSON.parse(b);
      return { content: j.choices[0].message.content, usage: j.usage };
    };
    assert.deepEqual(answer(streamed.body), answer(whole.body), 'the simulator answers from the prompt\'s hash: the same answer is the same prompt');
    const other = Buffer.from(body.toString('utf8').replace('10999🦊é', '10999🦊e'));
    const changed = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers, payload: Readable.from([other]) });
    assert.notDeepEqual(answer(changed.body).content, answer(whole.body).content, 'one character changed is another prompt (so the check above can fail)');
  } finally {
    await t.close();
  }
});

test('a chunked body (no content-length) past the route\'s limit is a 413 in the unified body, counted as it arrives', async () => {
  const t = await buildTestApp({ env: { GANTRY_BODY_LIMIT_LLM_MB: '2' } });
  try {
    const headers = { authorization: `Bearer ${t.creds.apiKey}`, 'content-type': 'application/json' };
    const chat = (bytes: number) => Buffer.from(JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'w'.repeat(bytes) }] }));
    const inChunks = (body: Buffer) => Readable.from((function* () {
      for (let at = 0; at < body.length; at += 65_536) yield body.subarray(at, at + 65_536);
    })());
    const over = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers, payload: inChunks(chat(2 * MiB)) });
    assert.equal(over.statusCode, 413, over.body.slice(0, 300));
    assert.equal(JSON.parse(over.body).reason, 'PAYLOAD_TOO_LARGE');
    // just under the limit, the same way, is read whole and judged: its token estimate (bytes / 4)
    // is over the team's TPM
    const under = await t.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', headers, payload: inChunks(chat(2 * MiB - 200)) });
    assert.equal(under.statusCode, 429, under.body.slice(0, 300));
    assert.equal(JSON.parse(under.body).reason, 'TOKEN_LIMIT_EXCEEDED');
    assert.ok(JSON.parse(under.body).metadata.requested > (2 * MiB - 200) / 4, 'the whole prompt was counted');
  } finally {
    await t.close();
  }
});
