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
