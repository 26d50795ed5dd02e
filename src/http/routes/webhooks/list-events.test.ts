// GET /openapi/v1/webhook/events: the events an endpoint may subscribe to, the list endpoint
// creation accepts (every one of them, and nothing else); Owner and Admin only, like the
// rest of the webhook configuration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { WEBHOOK_EVENTS } from '../../../domain/webhooks/codes.ts';

test('the event list: what endpoints accept, for Owner and Admin', async () => {
  const t = await buildTestApp({ env: { GANTRY_WEBHOOK_ALLOW_PRIVATE: '1' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const r = await as(t.app, team.members.Admin.apiKey).get('/openapi/v1/webhook/events');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.events, [...WEBHOOK_EVENTS]);
    assert.ok(r.body.events.includes('task.succeeded') && r.body.events.includes('balance.low'));
    // an endpoint subscribes to every listed event; an event not listed is refused, naming events
    const all = await as(t.app, team.owner.apiKey).post('/openapi/v1/webhook/endpoints', { url: 'https://example.com/all', events: r.body.events });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    const bad = await as(t.app, team.owner.apiKey).post('/openapi/v1/webhook/endpoints', { url: 'https://example.com/x', events: ['task.exploded'] });
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.metadata.field), /^events/);
    for (const role of ['Developer', 'Basic', 'Billing'] as const) {
      const refused = await as(t.app, team.members[role].apiKey).get('/openapi/v1/webhook/events');
      assert.equal(refused.status, 403, role);
      assert.equal(refused.body.reason, 'FORBIDDEN');
    }
  } finally {
    await t.close();
  }
});
