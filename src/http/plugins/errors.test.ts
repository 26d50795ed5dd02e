import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../test/helpers/app.ts';
import { call } from '../../../test/helpers/http.ts';

test('requests racing to create the same thing: one wins, the others are 409, never a 500', async () => {
  const t = await buildTestApp();
  try {
    const admin = t.creds.adminToken;
    const team = await call(t.app, 'POST', '/admin/v1/teams', { token: admin, body: { name: 'race', ownerEmail: 'race-owner@example.com' } });
    for (let round = 0; round < 3; round++) {
      const body = { email: `race-${round}@example.com`, role: 'Basic' };
      const answers = await Promise.all(Array.from({ length: 6 }, () => call(t.app, 'POST', `/admin/v1/teams/${team.body.userId}/members`, { token: admin, body })));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409], JSON.stringify(answers.map((a) => a.body)));
      for (const a of answers.filter((x) => x.status === 409)) assert.equal(a.body.reason, 'CONFLICT');
    }
  } finally {
    await t.close();
  }
});

test('an error echoes what it is about within a bound: a 14,000-character model name comes back small, each echo clipped', async () => {
  const t = await buildTestApp();
  try {
    const name = `m${'x'.repeat(13_998)}z`;
    const res = await t.app.inject({ method: 'GET', url: `/openai/v1/models/${name}`, headers: { authorization: `Bearer ${t.creds.apiKey}` } });
    assert.equal(res.statusCode, 404, res.body.slice(0, 300));
    assert.ok(res.body.length < 2048, `${res.body.length} bytes`);
    const body = JSON.parse(res.body);
    assert.equal(body.reason, 'MODEL_NOT_FOUND');
    assert.equal(body.message.length, 600);
    assert.match(body.message, /^model mxx+…x+z does not exist or is not available to this API key$/, 'the head and the end of the sentence are kept');
    assert.equal(body.error.message, body.message);
    assert.equal(body.metadata.model.length, 200);
    assert.ok(body.metadata.model.endsWith('…'));
    // a short one is told whole
    const short = JSON.parse((await t.app.inject({ method: 'GET', url: '/openai/v1/models/nope', headers: { authorization: `Bearer ${t.creds.apiKey}` } })).body);
    assert.equal(short.message, 'model nope does not exist or is not available to this API key');
    assert.equal(short.metadata.model, 'nope');
  } finally {
    await t.close();
  }
});
