import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toRequest } from './admin.ts';

test('CLI commands map to operator API calls', () => {
  assert.deepEqual(toRequest(['teams', 'create', '--name', 'acme', '--owner-email', 'o@acme.io', '--tier', 'T2']),
    { method: 'POST', path: '/admin/v1/teams', body: { name: 'acme', ownerEmail: 'o@acme.io', tier: 'T2' } });
  assert.deepEqual(toRequest(['members', 'role', 'mem_1', 'Admin']), { method: 'POST', path: '/admin/v1/members/mem_1/role', body: { role: 'Admin' } });
  assert.deepEqual(toRequest(['topup', 'usr_1', '500000', '--idempotency-key', 'k1']),
    { method: 'POST', path: '/admin/v1/teams/usr_1/topups', body: { amount: '500000', idempotencyKey: 'k1' } });
  assert.deepEqual(toRequest(['quotas', 'override', 'usr_1', '--model', 'a/b', '--type', 'RPM', '--quota', 'none']),
    { method: 'PUT', path: '/admin/v1/teams/usr_1/quotas', body: { model: 'a/b', quotaType: 'RPM', currentQuota: null } });
  assert.deepEqual(toRequest(['team-models', 'usr_1', '--enabled', 'a/b,c/d']),
    { method: 'PUT', path: '/admin/v1/teams/usr_1/models', body: { enabledModels: ['a/b', 'c/d'] } });
  assert.throws(() => toRequest(['teams', 'create', '--name', 'x']), /--owner-email/);
  assert.throws(() => toRequest(['frobnicate']), /unknown admin command/);
});

test('a top-up without an idempotency key gets a fresh one each call', () => {
  const a = toRequest(['topup', 'usr_1', '1']).body as { idempotencyKey: string };
  const b = toRequest(['topup', 'usr_1', '1']).body as { idempotencyKey: string };
  assert.notEqual(a.idempotencyKey, b.idempotencyKey);
});
