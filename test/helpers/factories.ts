// Factories that build tenants through the operator API, as an operator would.
import assert from 'node:assert/strict';
import type { App } from '../../src/http/types.ts';
import { ROLES, type Role } from '../../src/domain/roles.ts';
import { as } from './http.ts';

export interface Member {
  memberId: string;
  keyId: string;
  apiKey: string;
  role: Role;
}

export interface Team {
  userId: string;
  owner: Member;
  members: Record<Role, Member>;
}

let seq = 0;

/** A team with one member of every role, each with an API key. */
export async function createTeam(app: App, adminToken: string, name = `team-${++seq}`): Promise<Team> {
  const admin = as(app, adminToken);
  const t = await admin.post('/admin/v1/teams', { name, ownerEmail: `owner-${name}@example.com` });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const members = {} as Record<Role, Member>;
  for (const role of ROLES) {
    let memberId = t.body.ownerMemberId as string;
    if (role !== 'Owner') {
      const m = await admin.post(`/admin/v1/teams/${t.body.userId}/members`, { email: `${role.toLowerCase()}-${name}@example.com`, role });
      assert.equal(m.status, 200, JSON.stringify(m.body));
      memberId = m.body.memberId;
    }
    const k = await admin.post(`/admin/v1/members/${memberId}/keys`, { name: `${role}-key` });
    assert.equal(k.status, 200, JSON.stringify(k.body));
    members[role] = { memberId, keyId: k.body.keyId, apiKey: k.body.apiKey, role };
  }
  return { userId: t.body.userId, owner: members.Owner, members };
}

export async function topup(app: App, adminToken: string, userId: string, amount: number, idempotencyKey = `t-${++seq}`) {
  const r = await as(app, adminToken).post(`/admin/v1/teams/${userId}/topups`, { amount, idempotencyKey });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

export async function charge(app: App, adminToken: string, userId: string, body: Record<string, unknown>) {
  const r = await as(app, adminToken).post(`/admin/v1/teams/${userId}/charges`, {
    category: 'gpu', billingMethod: 1, productId: 'p1', productName: 'Product One', idempotencyKey: `c-${++seq}-${Math.random()}`, ...body,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}
