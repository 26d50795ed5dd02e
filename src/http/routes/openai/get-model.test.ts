// The model id is the rest of the path, decoded once by the router.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';

test('GET /models/{id}: the id is decoded once; an escape that decodes to another escape is just an unknown id', async () => {
  const t = await buildTestApp();
  try {
    const get = async (path: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/openai/v1/models/${path}`, headers: { authorization: `Bearer ${t.creds.apiKey}` } });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    };
    for (const path of ['gantry/sim-chat-small', 'gantry%2Fsim-chat-small', 'gantry%2fsim-chat-small']) {
      const r = await get(path);
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.id, 'gantry/sim-chat-small');
    }
    // decoded twice, %25zz was %zz and then a URIError (a 500)
    for (const path of ['%25zz', 'gantry%252Fsim-chat-small', '%2500']) {
      const r = await get(path);
      assert.equal(r.status, 404, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.reason, 'MODEL_NOT_FOUND');
    }
    const broken = await get('%zz');
    assert.equal(broken.status, 400);
    assert.equal(broken.body.reason, 'INVALID_REQUEST_BODY');
    assert.equal(broken.body.metadata.field, 'path');
  } finally {
    await t.close();
  }
});
