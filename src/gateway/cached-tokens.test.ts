// Cached and reasoning tokens as an HTTP upstream reports them: the usage object comes back
// to the client whole (streamed too), cached prompt tokens are billed at the model's cached
// input price (default: the input price), reasoning tokens as output, and batch lines at
// the batch prices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';
import { createTeam, topup } from '../../test/helpers/factories.ts';
import { batchPrices, interactivePrices } from './admission.ts';
import { usageCostMicro } from '../domain/usage/record.ts';
import type { ModelRow } from '../domain/usage/snapshot.ts';

const USAGE = {
  prompt_tokens: 20, completion_tokens: 5, total_tokens: 25,
  prompt_tokens_details: { cached_tokens: 8, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 3, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

async function drain(req: IncomingMessage): Promise<any> {
  let s = '';
  for await (const c of req) s += c;
  return JSON.parse(s);
}

test('cached and reasoning tokens: reported whole, cached billed at the cached price, reasoning as output', async () => {
  const upstream = createServer(async (req, res) => {
    const body = await drain(req);
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage: USAGE })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      id: 'c2', object: 'chat.completion', created: 1, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, finish_reason: 'stop' }], usage: USAGE,
    }));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v1`;
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    // per token: input 4 units, cached input 1, output 10
    const m = await admin.post('/admin/v1/models?check=off', {
      id: 'acme/cached', title: 'Cached', contextSize: 8192, inputTokenPricePerM: 4_000_000, outputTokenPricePerM: 10_000_000,
      cachedInputTokenPricePerM: 1_000_000, status: 'available', upstream: { url },
    });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.cachedInputTokenPricePerM, '1000000');
    const plain = await admin.post('/admin/v1/models?check=off', {
      id: 'acme/uncached', title: 'Default cached price', contextSize: 8192, inputTokenPricePerM: 4_000_000, outputTokenPricePerM: 10_000_000,
      status: 'available', upstream: { url },
    });
    assert.equal(plain.body.cachedInputTokenPricePerM, null, 'omitted: the input price applies');
    const bad = await admin.post('/admin/v1/models?check=off', {
      id: 'acme/bad', title: 'Bad', contextSize: 8192, inputTokenPricePerM: 1, outputTokenPricePerM: 1, cachedInputTokenPricePerM: -1,
      status: 'available', upstream: { url },
    });
    assert.equal(bad.status, 400);
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const key = as(t.app, team.owner.apiKey);
    const balance = async () => Number((await key.get('/openapi/v1/billing/balance/detail')).body.availableBalance);
    const messages = [{ role: 'user', content: 'hello' }];

    let before = await balance();
    const r = await key.post('/openai/v1/chat/completions', { model: 'acme/cached', messages, max_tokens: 10 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.usage, USAGE, 'the upstream usage object, details included, comes back unchanged');
    // 12 uncached × 4 + 8 cached × 1 + 5 output (3 of them reasoning) × 10
    assert.equal(before - (await balance()), 12 * 4 + 8 * 1 + 5 * 10);

    before = await balance();
    const s = await t.app.inject({
      method: 'POST', url: '/openai/v1/chat/completions', headers: { authorization: `Bearer ${team.owner.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ model: 'acme/cached', messages, max_tokens: 10, stream: true, stream_options: { include_usage: true } }),
    });
    assert.equal(s.statusCode, 200);
    const chunks = s.body.split('\n\n').filter(Boolean).map((l) => l.slice(6)).filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
    assert.deepEqual(chunks.at(-1).usage, USAGE, 'the streamed usage chunk carries the upstream details');
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.equal(before - (await balance()), 12 * 4 + 8 * 1 + 5 * 10, 'a stream is billed the same way');

    before = await balance();
    assert.equal((await key.post('/openai/v1/chat/completions', { model: 'acme/uncached', messages, max_tokens: 10 })).status, 200);
    assert.equal(before - (await balance()), 20 * 4 + 5 * 10, 'no cached price set: cached tokens cost the input price');

    await t.services.gateway.sink.settled();
    const rows = await t.store.db.execute(
      `select model, prompt_tokens::int as p, cached_tokens::int as c, reasoning_tokens::int as r, cached_input_price_per_m_units::text as cp
         from usage_events where team_id = '${team.userId}' order by model` as never,
    ) as unknown as { rows: Array<Record<string, unknown>> };
    assert.deepEqual(rows.rows.map((x) => [x.model, x.p, x.c, x.r, x.cp]), [
      ['acme/cached', 20, 8, 3, '1000000'], ['acme/cached', 20, 8, 3, '1000000'], ['acme/uncached', 20, 8, 3, '4000000'],
    ]);
  } finally {
    await t.close();
    upstream.close();
  }
});

test('prices: cached defaults to input; batch cached is half the cached price, never above the batch input price', () => {
  const row = (o: Partial<ModelRow>) => ({
    inputPricePerMUnits: 400n, outputPricePerMUnits: 1000n, batchInputPricePerMUnits: null, batchOutputPricePerMUnits: null,
    cachedInputPricePerMUnits: null, ...o,
  }) as ModelRow;
  assert.deepEqual(interactivePrices(row({})), { inputPricePerMUnits: 400n, outputPricePerMUnits: 1000n, cachedInputPricePerMUnits: 400n });
  assert.equal(interactivePrices(row({ cachedInputPricePerMUnits: 100n })).cachedInputPricePerMUnits, 100n);
  assert.deepEqual(batchPrices(row({ cachedInputPricePerMUnits: 100n })), { inputPricePerMUnits: 200n, outputPricePerMUnits: 500n, cachedInputPricePerMUnits: 50n });
  assert.equal(batchPrices(row({ batchInputPricePerMUnits: 20n, cachedInputPricePerMUnits: 100n })).cachedInputPricePerMUnits, 20n);
  // an upstream reporting more cached tokens than the prompt is believed only up to the prompt
  assert.equal(usageCostMicro({ promptTokens: 10, completionTokens: 0, cachedTokens: 50, inputPricePerMUnits: 4n, outputPricePerMUnits: 0n, cachedInputPricePerMUnits: 1n }), 10n);
});
