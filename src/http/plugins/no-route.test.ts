// A request no route answers: a path served with other methods is 405 METHOD_NOT_ALLOWED with
// `Allow`; any other path a 404 that says the path is unknown (API_NOT_FOUND), on the model
// doors too, where it used to read as MODEL_NOT_FOUND. Every /anthropic answer, errors
// included, carries the `request-id` Anthropic's SDKs read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { buildTestApp } from '../../../test/helpers/app.ts';
import { as, call } from '../../../test/helpers/http.ts';
import { createTeam } from '../../../test/helpers/factories.ts';

test('unknown paths are 404 API_NOT_FOUND and known paths with another method 405 with Allow, through the official SDKs and inject', async () => {
  const t = await buildTestApp();
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const openai = new OpenAI({ apiKey: team.owner.apiKey, baseURL: `${address}/openai/v1`, maxRetries: 0 });
    const moderation = await openai.moderations.create({ input: 'hello' }).catch((e: unknown) => e);
    assert.ok(moderation instanceof OpenAI.NotFoundError, String(moderation));
    assert.equal(moderation.code, 'api_not_found');
    assert.match(moderation.message, /unknown path/);
    assert.doesNotMatch(moderation.message, /model/i, 'nothing says a model was not found');

    const key = as(t.app, team.owner.apiKey);
    for (const url of ['/openai/v1/chat/completions', '/v1/chat/completions', '/anthropic/v1/messages']) {
      const put = await key.put(url, {});
      assert.equal(put.status, 405, url);
      assert.equal(put.body.reason, 'METHOD_NOT_ALLOWED', url);
      assert.equal(put.headers.allow, 'POST', url);
      assert.match(put.body.message, /does not answer PUT; it answers POST/);
    }
    const models = await key.delete('/openai/v1/models');
    assert.equal(models.status, 405);
    assert.equal(models.headers.allow, 'GET, HEAD', 'a GET route answers HEAD too');
    // a path parameter and a trailing slash match as the router matches them
    const revoke = await call(t.app, 'GET', '/openapi/v1/user/keys/key_anything/revoke/', { token: team.owner.apiKey });
    assert.equal(revoke.status, 405);
    assert.equal(revoke.headers.allow, 'POST');

    // an unknown path in each family: its own not-found reason, never MODEL_NOT_FOUND
    const expected: Record<string, [number, string]> = {
      '/openai/v1/nothing-here': [404, 'API_NOT_FOUND'], '/v1/nothing-here': [404, 'API_NOT_FOUND'],
      '/anthropic/v1/nothing-here': [404, 'API_NOT_FOUND'], '/v3/nothing-here': [404, 'API_NOT_FOUND'],
      '/admin/v1/nothing-here': [404, 'NOT_FOUND'], '/nothing-here': [404, 'NOT_FOUND'],
    };
    for (const [url, [status, reason]] of Object.entries(expected)) {
      const r = await key.get(url);
      assert.equal(r.status, status, url);
      assert.equal(r.body.reason, reason, url);
      assert.match(r.body.message, /unknown path/, url);
      assert.equal(r.headers.allow, undefined, url);
    }
  } finally {
    await t.close();
  }
});

test('every /anthropic answer carries request-id, errors included; the SDK reads it', async () => {
  const t = await buildTestApp();
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new Anthropic({ apiKey: team.owner.apiKey, baseURL: `${address}/anthropic`, maxRetries: 0 });
    // no balance: a refusal by the route
    const refused = await client.messages.create({ model: 'gantry/sim-chat-small', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.ok(refused instanceof Anthropic.APIError, String(refused));
    assert.match(String(refused.requestID), /^req_/, 'the SDK reads the id of an error from request-id');
    const stranger = new Anthropic({ apiKey: 'sk_not_a_key', baseURL: `${address}/anthropic`, maxRetries: 0 });
    const unauthorized = await stranger.messages.countTokens({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.ok(unauthorized instanceof Anthropic.AuthenticationError);
    assert.match(String(unauthorized.requestID), /^req_/);
    for (const [method, url] of [['GET', '/anthropic/v1/nothing'], ['PUT', '/anthropic/v1/messages'], ['GET', '/anthropic/%zz']] as const) {
      const r = await call(t.app, method, url, { token: team.owner.apiKey });
      assert.ok(r.status >= 400, url);
      assert.equal(r.body.type, 'error', url);
      assert.ok(r.headers['request-id'], `${method} ${url} carries request-id`);
      assert.equal(r.headers['request-id'], r.headers['x-request-id'], 'the same id under both names');
    }
    // outside /anthropic, only x-request-id
    const openai = await call(t.app, 'GET', '/openai/v1/nothing');
    assert.equal(openai.headers['request-id'], undefined);
  } finally {
    await t.close();
  }
});
