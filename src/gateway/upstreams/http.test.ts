// OpenAI-compatible HTTP upstreams through the gateway: the upstream's model name and
// credential (from the env var the catalogue names), failover past an unreachable server,
// streaming pass-through with usage, and no bill when the upstream fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import { buildTestApp } from '../../../test/helpers/app.ts';
import { as } from '../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../test/helpers/factories.ts';

async function readJson(req: IncomingMessage): Promise<any> {
  let s = '';
  for await (const c of req) s += c;
  return JSON.parse(s);
}

/** A minimal OpenAI-compatible server that records what it was sent. */
async function mockUpstream(): Promise<{ server: Server; url: string; seen: Array<{ auth: string | undefined; body: any }>; fail: { status: number } }> {
  const seen: Array<{ auth: string | undefined; body: any }> = [];
  const fail = { status: 0 };
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    seen.push({ auth: req.headers.authorization, body });
    if (fail.status) {
      res.writeHead(fail.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'upstream exploded' } }));
      return;
    }
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of ['Hello', ' from', ' upstream']) {
        res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] })}\n\n`);
      }
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: body.model, choices: [], usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      id: 'c2', object: 'chat.completion', created: 1, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from upstream' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
    }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://127.0.0.1:${port}/v1`, seen, fail };
}

async function closedPort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('an HTTP upstream list: failover on connection failure, credential from env, usage billed, failures not billed', async () => {
  const mock = await mockUpstream();
  const t = await buildTestApp({ env: { GW_TEST_UPSTREAM_KEY: 'upstream-secret' } });
  try {
    const admin = as(t.app, t.creds.adminToken);
    const dead = await closedPort();
    const upsert = await admin.post('/admin/v1/models?check=off', {
      id: 'acme/remote', title: 'Remote', contextSize: 8192, inputTokenPricePerM: 1000000, outputTokenPricePerM: 2000000, status: 'available',
      upstream: [{ url: `http://127.0.0.1:${dead}/v1` }, { url: mock.url, model: 'real-name', apiKeyEnv: 'GW_TEST_UPSTREAM_KEY' }],
    });
    assert.equal(upsert.status, 200, JSON.stringify(upsert.body));
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const u = as(t.app, team.owner.apiKey);
    const messages = [{ role: 'user', content: 'hi' }];
    const r = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 10 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.model, 'acme/remote', 'the client sees the catalogue id');
    assert.equal(r.body.choices[0].message.content, 'Hello from upstream');
    assert.equal(mock.seen.length, 1);
    assert.equal(mock.seen[0]!.auth, 'Bearer upstream-secret');
    assert.equal(mock.seen[0]!.body.model, 'real-name');

    const s = await t.app.inject({
      method: 'POST', url: '/openai/v1/chat/completions', headers: { authorization: `Bearer ${team.owner.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ model: 'acme/remote', messages, max_tokens: 10, stream: true }),
    });
    assert.equal(s.statusCode, 200);
    assert.equal(mock.seen[1]!.body.stream_options.include_usage, true, 'the gateway asks for usage to bill from');
    const events = s.body.split('\n\n').filter(Boolean).map((l) => l.slice(6));
    assert.equal(events.at(-1), '[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    assert.ok(chunks.every((c) => !c.usage && c.model === 'acme/remote'), 'no usage chunk unless the client asked');
    assert.equal(chunks.map((c) => c.choices[0].delta.content ?? '').join(''), 'Hello from upstream');

    // Upstream failure: 503 to the client, nothing billed.
    mock.fail.status = 500;
    const f = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 10 });
    assert.equal(f.status, 503);
    assert.equal(f.body.reason, 'SERVICE_NOT_AVAILABLE');
    assert.doesNotMatch(f.body.message, /exploded/, 'a 5xx does not leak upstream internals');
    mock.fail.status = 400;
    const bad = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 10 });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /exploded/, 'a 4xx from the upstream says why');
    // Refusals that are not the client's to fix (our upstream credential, the upstream's model
    // name, its own rate limit) are upstream failures: 503, not billed, stream or not.
    for (const status of [401, 403, 404, 429]) {
      mock.fail.status = status;
      for (const stream of [false, true]) {
        const x = await u.post('/openai/v1/chat/completions', { model: 'acme/remote', messages, max_tokens: 10, stream });
        assert.equal(x.status, 503, `upstream ${status} (stream ${stream}): ${JSON.stringify(x.body)}`);
        assert.equal(x.body.reason, 'SERVICE_NOT_AVAILABLE');
        assert.doesNotMatch(x.body.message, /exploded/);
      }
    }

    // Exactly two requests billed: 2 × (11 × 1 + 3 × 2) units.
    const now = Math.floor(t.clock.nowMs() / 1000);
    const bills = await u.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', startTime: now - 3600, endTime: now + 60 });
    const row = bills.body.bills.find((b: any) => b.productName === 'acme/remote');
    assert.equal(row.amount, '34');
    assert.equal(row.billNum0, '22');
    assert.equal(row.billNum1, '6');
    assert.equal((await u.get('/openapi/v1/billing/balance/detail')).body.pendingCharges, '0');
  } finally {
    await t.close();
    mock.server.close();
  }
});
