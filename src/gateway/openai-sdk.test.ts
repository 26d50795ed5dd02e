// Clients written for OpenAI work unchanged: the official `openai` package against a
// listening Gantry (models, chat stream and not, completions, embeddings), and its errors
// carry our status and message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';

test('the official openai package drives the gateway', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '1', GANTRY_SIM_TOKENS_PER_S: '100000' } });
  try {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const client = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });

    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    assert.deepEqual(ids.sort(), ['gantry/sim-chat-large', 'gantry/sim-chat-small', 'gantry/sim-embed']);
    const one = await client.models.retrieve('gantry/sim-chat-small');
    assert.equal(one.id, 'gantry/sim-chat-small');

    const messages = [{ role: 'user' as const, content: 'Say something about gardens.' }];
    const done = await client.chat.completions.create({ model: 'gantry/sim-chat-small', messages, max_tokens: 30 });
    assert.equal(done.object, 'chat.completion');
    assert.ok(done.choices[0]!.message.content!.length > 0);
    assert.ok(done.usage!.completion_tokens > 0);

    const stream = await client.chat.completions.create({ model: 'gantry/sim-chat-small', messages, max_tokens: 30, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, done.choices[0]!.message.content, 'streamed text equals the non-streamed answer');
    assert.deepEqual(usage, done.usage);

    // The SDK's stream helper, which accumulates a final message.
    const runner = client.chat.completions.stream({ model: 'gantry/sim-chat-small', messages, max_tokens: 30 });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0]!.message.content, done.choices[0]!.message.content);

    const comp = await client.completions.create({ model: 'gantry/sim-chat-large', prompt: 'Once upon a time', max_tokens: 12 });
    assert.equal(comp.object, 'text_completion');
    assert.ok(comp.choices[0]!.text.length > 0);
    const compStream = await client.completions.create({ model: 'gantry/sim-chat-large', prompt: 'Once upon a time', max_tokens: 12, stream: true });
    let ctext = '';
    for await (const c of compStream) ctext += c.choices[0]?.text ?? '';
    assert.equal(ctext, comp.choices[0]!.text);

    // The SDK asks for base64 by default and decodes it; the vector matches the float form.
    const emb = await client.embeddings.create({ model: 'gantry/sim-embed', input: ['river stone', 'paper'] });
    assert.equal(emb.data.length, 2);
    const plain = await as(t.app, team.owner.apiKey).post('/openai/v1/embeddings', { model: 'gantry/sim-embed', input: 'river stone', encoding_format: 'float' });
    assert.equal(emb.data[0]!.embedding.length, plain.body.data[0].embedding.length);
    for (const [i, x] of emb.data[0]!.embedding.entries()) assert.ok(Math.abs(x - plain.body.data[0].embedding[i]) < 1e-6);
    assert.equal(emb.usage.prompt_tokens, 3);

    // Errors: our status and message reach the SDK's error classes.
    await assert.rejects(client.chat.completions.create({ model: 'acme/nope', messages }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.NotFoundError);
      assert.equal(e.status, 404);
      assert.match(e.message, /model acme\/nope does not exist/);
      assert.equal(e.code, 'model_not_found');
      return true;
    });
    await assert.rejects(new OpenAI({ apiKey: 'sk_' + 'x'.repeat(40), baseURL: `${address}/openai/v1`, maxRetries: 0 }).models.list(), (e: unknown) => {
      assert.ok(e instanceof OpenAI.AuthenticationError);
      assert.equal(e.status, 401);
      assert.match(e.message, /invalid or has been revoked/);
      return true;
    });
    await assert.rejects(client.chat.completions.create({ model: 'gantry/sim-chat-small', messages: [] }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.param, 'messages');
      return true;
    });
    const poor = await createTeam(t.app, t.creds.adminToken);
    await assert.rejects(new OpenAI({ apiKey: poor.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gantry/sim-chat-small', messages }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.PermissionDeniedError);
      assert.equal(e.status, 403);
      assert.match(e.message, /account balance cannot cover/);
      return true;
    });
    await as(t.app, t.creds.adminToken).put(`/admin/v1/teams/${team.userId}/quotas`, { model: 'gantry/sim-chat-large', quotaType: 'RPM', currentQuota: 1 });
    await client.chat.completions.create({ model: 'gantry/sim-chat-large', messages, max_tokens: 5 }).catch(() => {});
    await assert.rejects(client.chat.completions.create({ model: 'gantry/sim-chat-large', messages, max_tokens: 5 }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.RateLimitError);
      assert.equal(e.status, 429);
      assert.match(e.message, /rate limit reached/);
      assert.ok(Number(e.headers?.get('retry-after')) >= 1);
      return true;
    });
  } finally {
    await t.close();
  }
});
