// A retired model: gone from the tenants' lists and calls (as an offline one), from the
// operator's list unless asked for, and from what a team may have enabled; its usage stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';

const model = (status: string) => ({
  id: 'acme/old', title: 'Old', contextSize: 4096, inputTokenPricePerM: 1000, outputTokenPricePerM: 2000, status, upstream: 'sim',
});

test('a retired model leaves the lists and calls, cannot be enabled for a team, and its bills stay', async () => {
  const t = await buildTestApp();
  try {
    const admin = as(t.app, t.creds.adminToken);
    assert.equal((await admin.post('/admin/v1/models', model('available'))).status, 200);
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 100000);
    const tenant = as(t.app, team.owner.apiKey);
    const call = () => tenant.post('/openai/v1/chat/completions', { model: 'acme/old', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    assert.equal((await call()).status, 200);

    const retired = await admin.post('/admin/v1/models', model('retired'));
    assert.equal(retired.status, 200, JSON.stringify(retired.body));
    assert.equal(retired.body.status, 'retired');
    assert.equal((await call()).status, 404);
    assert.ok(!(await tenant.get('/openai/v1/models')).body.data.some((m: { id: string }) => m.id === 'acme/old'));
    const ids = async (query?: Record<string, string>) => (await admin.get('/admin/v1/models', query)).body.models.map((m: { id: string }) => m.id);
    assert.ok(!(await ids()).includes('acme/old'), 'the operator\'s list leaves it out');
    assert.ok((await ids({ retired: 'true' })).includes('acme/old'), '…unless asked for');

    const enable = await admin.put(`/admin/v1/teams/${team.userId}/models`, { enabledModels: ['gantry/sim-chat-small', 'acme/old'] });
    assert.equal(enable.status, 400);
    assert.equal(enable.body.metadata.field, 'enabledModels[1]');
    assert.equal((await admin.get(`/admin/v1/teams/${team.userId}`)).body.enabledModels, null, 'nothing written');

    const now = Math.floor(t.clock.nowMs() / 1000);
    const bills = await tenant.get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Day', startTime: now - 3600, endTime: now + 60 });
    assert.ok(bills.body.bills.some((b: { productName: string }) => b.productName === 'acme/old'), 'the call made before it was retired stays billed');
  } finally {
    await t.close();
  }
});
