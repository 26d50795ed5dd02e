// Issue 29 item 3: what an Owner or Admin restricts about a member cannot be undone by that
// member. A member policy binds every key the member has and creates; a default key budget
// is what each new key starts with; nobody but an Owner changes a limit that binds itself.
// Rules: docs/compat-decisions.md (Roles), src/domain/policy/README.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as, type Res } from './helpers/http.ts';
import { createTeam, topup, type Team } from './helpers/factories.ts';
import { buildApp } from '../src/app.ts';
import { ManualClock } from '../src/lib/clock.ts';
import { openStore } from '../src/store/db.ts';
import type { Role } from '../src/domain/roles.ts';

const SMALL = 'gantry/sim-chat-small';
const LARGE = 'gantry/sim-chat-large';
const EMBED = 'gantry/sim-embed';
const FAST = { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' };
const MEMBER_POLICY = (memberId: string) => `/openapi/v2/user/member/${memberId}/model-access-policy`;
const KEY_POLICY = (keyId: string) => `/openapi/v2/user/key/${keyId}/model-access-policy`;
const DEFAULT_KEY_BUDGET = '/openapi/v1/user/team/default-key-budget';
const KEY_BUDGET = '/openapi/v1/user/team/key-budget';
const MEMBER_BUDGET = '/openapi/v1/user/team/budget';
const ONLY_SMALL = { mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }] };
const SELF_RULE = 'nobody changes a limit on itself';
const OWNER_RULE = 'only an Owner acts on an Owner';
const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Tell me about rivers.' }], max_tokens: 5 });

let h: TestApp;
before(async () => {
  h = await buildTestApp({ env: FAST });
});
after(() => h.close());

async function newTeam(): Promise<Team> {
  const t = await createTeam(h.app, h.creds.adminToken);
  await topup(h.app, h.creds.adminToken, t.userId, 1_000_000);
  return t;
}

function refused(r: Res, rule: string | undefined, where: string): void {
  assert.equal(r.status, 403, `${where}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.reason, 'FORBIDDEN', where);
  if (rule) assert.equal(r.body.metadata.rule, rule, `${where}: ${JSON.stringify(r.body)}`);
}

async function keyBudgetOf(t: Team, memberId: string, keyId: string) {
  const r = await as(h.app, t.owner.apiKey).get('/openapi/v1/user/team/key-budget-list', { member_id: memberId });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.key_budgets.find((k: { key_id: string }) => k.key_id === keyId);
}

/** Every limit that binds `memberId` as the team's Owner reads it, to check a refusal changed nothing. */
async function limitsOf(t: Team, memberId: string, keyId: string) {
  const owner = as(h.app, t.owner.apiKey);
  return {
    member: (await owner.get(MEMBER_POLICY(memberId))).body,
    key: (await owner.get(KEY_POLICY(keyId))).body,
    defaultBudget: (await owner.get(DEFAULT_KEY_BUDGET, { member_id: memberId })).body,
    keyBudget: await keyBudgetOf(t, memberId, keyId),
    memberBudget: (await owner.get('/openapi/v1/user/team/budget-list')).body.budgets.find((b: { member_id: string }) => b.member_id === memberId),
  };
}

/** Everything a member might try to lift its own limits with; each must be refused. */
async function tryToLiftOwnLimits(token: string, memberId: string, keyId: string) {
  const c = as(h.app, token);
  return {
    'member policy (PUT)': await c.put(MEMBER_POLICY(memberId), { mode: 'all_enabled' }),
    'member policy (DELETE)': await c.delete(MEMBER_POLICY(memberId)),
    'default key budget': await c.put(DEFAULT_KEY_BUDGET, { member_id: memberId, budget_type: 'Unlimited' }),
    'member budget': await c.put(MEMBER_BUDGET, { member_id: memberId, budget_type: 'Unlimited' }),
    'key budget': await c.put(KEY_BUDGET, { member_id: memberId, key_id: keyId, budget_type: 'Unlimited' }),
    'key policy (PUT)': await c.put(KEY_POLICY(keyId), { mode: 'all_enabled' }),
    'key policy (DELETE)': await c.delete(KEY_POLICY(keyId)),
  };
}

for (const [restrictor, restricted] of [['Owner', 'Developer'], ['Owner', 'Basic'], ['Admin', 'Developer'], ['Admin', 'Basic'], ['Owner', 'Admin']] as [Role, Role][]) {
  test(`${restrictor} restricts ${restricted === 'Admin' ? 'an' : 'a'} ${restricted}: a new key the ${restricted} makes is bound by the member policy and starts with the default key budget`, async () => {
    const t = await newTeam();
    const boss = as(h.app, t.members[restrictor].apiKey);
    const m = t.members[restricted];
    const set = await boss.put(MEMBER_POLICY(m.memberId), ONLY_SMALL);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.callableModels, [SMALL]);
    assert.equal(set.body.updatedBy, t.members[restrictor].memberId);
    assert.equal((await boss.put(DEFAULT_KEY_BUDGET, { member_id: m.memberId, budget_type: 'One-time', budget_limit: 20000 })).status, 200);

    // The escape of the issue: a new key of its own, with no policy and no budget of its own.
    const member = as(h.app, m.apiKey);
    const made = await member.post('/openapi/v1/user/keys', { name: 'escape' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const newKey = as(h.app, made.body.apiKey);
    const denied = await newKey.post('/openai/v1/chat/completions', chat(LARGE));
    assert.equal(denied.status, 403, JSON.stringify(denied.body));
    assert.equal(denied.body.reason, 'ACCESS_DENY');
    assert.match(denied.body.message, /gantry\/sim-chat-large/);
    assert.equal(denied.body.metadata.rule, 'member policy');
    assert.equal((await newKey.post('/openai/v1/chat/completions', chat(SMALL))).status, 200);
    assert.deepEqual((await newKey.get('/openai/v1/models')).body.data.map((x: { id: string }) => x.id), [SMALL]);
    assert.equal((await newKey.get(`/openai/v1/models/${LARGE}`)).status, 404);
    // the key it had before is bound too
    assert.equal((await member.post('/openai/v1/chat/completions', chat(LARGE))).body.reason, 'ACCESS_DENY');

    const nb = await keyBudgetOf(t, m.memberId, made.body.keyId);
    assert.deepEqual([nb.budget_type, nb.budget_limit], ['One-time', 20000], 'the new key starts with the default, not Unlimited');
    assert.equal((await keyBudgetOf(t, m.memberId, m.keyId)).budget_type, 'Unlimited', 'keys made before keep their own budget');
    const own = await member.get(DEFAULT_KEY_BUDGET, { member_id: m.memberId });
    assert.deepEqual(own.body, { member_id: m.memberId, budget_type: 'One-time', budget_limit: 20000 }, 'a member reads its own default');

    // Nothing the member may call undoes it.
    const before = await limitsOf(t, m.memberId, made.body.keyId);
    for (const [what, r] of Object.entries(await tryToLiftOwnLimits(m.apiKey, m.memberId, made.body.keyId))) {
      refused(r, restricted === 'Admin' ? SELF_RULE : undefined, `${restricted} lifts its own ${what}`);
    }
    assert.deepEqual(await limitsOf(t, m.memberId, made.body.keyId), before);
    assert.equal((await newKey.post('/openai/v1/chat/completions', chat(LARGE))).body.reason, 'ACCESS_DENY');
  });
}

test('an Admin cannot lift (or touch) its own limits: member and key budgets, default key budget, member and key policies', async () => {
  const t = await newTeam();
  const owner = as(h.app, t.owner.apiKey);
  const a = t.members.Admin;
  assert.equal((await owner.put(MEMBER_BUDGET, { member_id: a.memberId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  assert.equal((await owner.put(KEY_BUDGET, { member_id: a.memberId, key_id: a.keyId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  assert.equal((await owner.put(KEY_POLICY(a.keyId), ONLY_SMALL)).status, 200);
  assert.equal((await owner.put(MEMBER_POLICY(a.memberId), ONLY_SMALL)).status, 200);
  assert.equal((await owner.put(DEFAULT_KEY_BUDGET, { member_id: a.memberId, budget_type: 'Recurring', budget_limit: 10000, cycle: 'Monthly' })).status, 200);
  const before = await limitsOf(t, a.memberId, a.keyId);
  for (const [what, r] of Object.entries(await tryToLiftOwnLimits(a.apiKey, a.memberId, a.keyId))) refused(r, SELF_RULE, `Admin lifts its own ${what}`);
  // lowering is a change too: one rule, nothing to compare
  const admin = as(h.app, a.apiKey);
  refused(await admin.put(MEMBER_BUDGET, { member_id: a.memberId, budget_type: 'One-time', budget_limit: 10000 }), SELF_RULE, 'Admin re-sets its own member budget');
  assert.deepEqual(await limitsOf(t, a.memberId, a.keyId), before, 'refusals changed nothing');
  assert.equal((await admin.post('/openai/v1/chat/completions', chat(LARGE))).body.reason, 'ACCESS_DENY');
  // ... and still restricts the members below it
  const dev = t.members.Developer;
  assert.equal((await admin.put(MEMBER_BUDGET, { member_id: dev.memberId, budget_type: 'Unlimited' })).status, 200);
  assert.equal((await admin.put(KEY_BUDGET, { member_id: dev.memberId, key_id: dev.keyId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  assert.equal((await admin.put(KEY_POLICY(dev.keyId), ONLY_SMALL)).status, 200);
  assert.equal((await admin.delete(MEMBER_POLICY(dev.memberId))).status, 200);
});

test('a Developer and a Basic member cannot change any of their limits; Billing not its own key budgets nor its default key budget', async () => {
  const t = await newTeam();
  for (const role of ['Developer', 'Basic', 'Billing'] as const) {
    const m = t.members[role];
    const before = await limitsOf(t, m.memberId, m.keyId);
    for (const [what, r] of Object.entries(await tryToLiftOwnLimits(m.apiKey, m.memberId, m.keyId))) {
      // Billing may update key budgets and default key budgets, but not its own: the self rule
      const own = role === 'Billing' && (what === 'key budget' || what === 'default key budget');
      refused(r, own ? SELF_RULE : undefined, `${role} changes its own ${what}`);
    }
    assert.deepEqual(await limitsOf(t, m.memberId, m.keyId), before, role);
  }
});

test('Billing sets the default key budget of others (never its own or the Owner\'s); the member\'s next key starts with it', async () => {
  const t = await newTeam();
  const billing = as(h.app, t.members.Billing.apiKey);
  const dev = t.members.Developer;
  assert.equal((await billing.put(DEFAULT_KEY_BUDGET, { member_id: dev.memberId, budget_type: 'Recurring', budget_limit: 30000, cycle: 'Monthly' })).status, 200);
  assert.deepEqual((await billing.get(DEFAULT_KEY_BUDGET, { member_id: dev.memberId })).body, { member_id: dev.memberId, budget_type: 'Recurring', budget_limit: 30000, cycle: 'Monthly' });
  const k = await as(h.app, dev.apiKey).post('/openapi/v1/user/keys', { name: 'second' });
  const kb = await keyBudgetOf(t, dev.memberId, k.body.keyId);
  assert.deepEqual([kb.budget_type, kb.budget_limit, kb.cycle], ['Recurring', 30000, 'Monthly']);
  // a key the operator creates for the member starts with it too
  const op = await as(h.app, h.creds.adminToken).post(`/admin/v1/members/${dev.memberId}/keys`, { name: 'by-operator' });
  assert.equal((await keyBudgetOf(t, dev.memberId, op.body.keyId)).budget_type, 'Recurring');
  refused(await billing.put(DEFAULT_KEY_BUDGET, { member_id: t.owner.memberId, budget_type: 'One-time', budget_limit: 10000 }), OWNER_RULE, 'Billing sets the Owner\'s default');
  refused(await billing.put(MEMBER_POLICY(dev.memberId), ONLY_SMALL), undefined, 'Billing sets a member policy');
  // Unlimited removes the default: later keys start Unlimited again
  assert.equal((await billing.put(DEFAULT_KEY_BUDGET, { member_id: dev.memberId, budget_type: 'Unlimited' })).status, 200);
  const k3 = await as(h.app, dev.apiKey).post('/openapi/v1/user/keys', { name: 'third' });
  assert.equal((await keyBudgetOf(t, dev.memberId, k3.body.keyId)).budget_type, 'Unlimited');
  assert.deepEqual((await billing.get(DEFAULT_KEY_BUDGET, { member_id: dev.memberId })).body, { member_id: dev.memberId, budget_type: 'Unlimited', budget_limit: 0 });
});

test('the Owner has no one above it: it sets, lifts and removes its own limits', async () => {
  const t = await newTeam();
  const o = t.owner;
  const owner = as(h.app, o.apiKey);
  assert.equal((await owner.put(MEMBER_POLICY(o.memberId), ONLY_SMALL)).status, 200);
  assert.equal((await owner.post('/openai/v1/chat/completions', chat(LARGE))).body.reason, 'ACCESS_DENY');
  assert.equal((await owner.put(DEFAULT_KEY_BUDGET, { member_id: o.memberId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  const k = await owner.post('/openapi/v1/user/keys', { name: 'own' });
  assert.equal((await keyBudgetOf(t, o.memberId, k.body.keyId)).budget_type, 'One-time');
  assert.equal((await owner.put(KEY_BUDGET, { member_id: o.memberId, key_id: k.body.keyId, budget_type: 'Unlimited' })).status, 200);
  assert.equal((await owner.put(MEMBER_BUDGET, { member_id: o.memberId, budget_type: 'One-time', budget_limit: 10000 })).status, 200);
  assert.equal((await owner.put(MEMBER_BUDGET, { member_id: o.memberId, budget_type: 'Unlimited' })).status, 200);
  assert.equal((await owner.put(KEY_POLICY(o.keyId), ONLY_SMALL)).status, 200);
  assert.equal((await owner.delete(KEY_POLICY(o.keyId))).status, 200);
  assert.equal((await owner.delete(MEMBER_POLICY(o.memberId))).status, 200);
  assert.equal((await owner.put(DEFAULT_KEY_BUDGET, { member_id: o.memberId, budget_type: 'Unlimited' })).status, 200);
  assert.equal((await owner.post('/openai/v1/chat/completions', chat(LARGE))).status, 200);
});

test('an Admin cannot act on the Owner\'s member policy or default key budget', async () => {
  const t = await newTeam();
  const admin = as(h.app, t.members.Admin.apiKey);
  const o = t.owner;
  assert.equal((await as(h.app, o.apiKey).put(MEMBER_POLICY(o.memberId), { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: EMBED }] })).status, 200);
  const before = await limitsOf(t, o.memberId, o.keyId);
  refused(await admin.put(MEMBER_POLICY(o.memberId), ONLY_SMALL), OWNER_RULE, 'Admin sets the Owner\'s member policy');
  refused(await admin.delete(MEMBER_POLICY(o.memberId)), OWNER_RULE, 'Admin deletes the Owner\'s member policy');
  refused(await admin.put(DEFAULT_KEY_BUDGET, { member_id: o.memberId, budget_type: 'One-time', budget_limit: 10000 }), OWNER_RULE, 'Admin sets the Owner\'s default key budget');
  assert.deepEqual(await limitsOf(t, o.memberId, o.keyId), before);
  assert.equal((await admin.get(MEMBER_POLICY(o.memberId))).status, 200, 'reads are not actions');
});

test('the member policy view: the default, what the member\'s keys may call, Developers see their own without lists', async () => {
  const t = await newTeam();
  const owner = as(h.app, t.owner.apiKey);
  const dev = t.members.Developer;
  const fresh = await owner.get(MEMBER_POLICY(dev.memberId));
  assert.equal(fresh.status, 200);
  assert.deepEqual(fresh.body, {
    memberId: dev.memberId,
    policy: { schemaVersion: 1, productScope: 'model_api', mode: 'all_enabled', allowedModels: [], excludedModels: [], source: { type: 'default' } },
    policyStatus: 'active', allowedModelCount: 0, excludedModelCount: 0, updatedAt: 0, updatedBy: '', callableModels: [SMALL, LARGE, EMBED].sort(),
  });
  const set = await owner.put(MEMBER_POLICY(dev.memberId), { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: LARGE }, { type: 'llm', id: LARGE }], allowedModels: [{ type: 'llm', id: SMALL }] });
  assert.deepEqual(set.body.policy, { schemaVersion: 1, productScope: 'model_api', mode: 'all_enabled', allowedModels: [], excludedModels: [{ type: 'llm', id: LARGE }], source: { type: 'private_policy' } });
  assert.deepEqual(set.body.callableModels, [EMBED, SMALL].sort());
  assert.deepEqual((await owner.get(MEMBER_POLICY(dev.memberId))).body, set.body);
  const own = await as(h.app, dev.apiKey).get(MEMBER_POLICY(dev.memberId));
  assert.equal(own.status, 200);
  assert.deepEqual(own.body.policy.excludedModels, []);
  assert.equal(own.body.excludedModelCount, 1);
  assert.equal(own.body.callableModels, undefined);
  refused(await as(h.app, dev.apiKey).get(MEMBER_POLICY(t.owner.memberId)), undefined, 'Developer reads another member\'s policy');
  refused(await as(h.app, t.members.Basic.apiKey).get(MEMBER_POLICY(t.members.Basic.memberId)), undefined, 'Basic reads its member policy');
  // the same input rules as a key policy
  const bad = await owner.put(MEMBER_POLICY(dev.memberId), { mode: 'selected', allowedModels: [{ type: 'llm', id: 'nope/model' }] });
  assert.deepEqual([bad.status, bad.body.reason, bad.body.metadata.field], [400, 'INVALID_ARGUMENT', 'allowedModels[0].id']);
  assert.equal((await owner.put(MEMBER_POLICY(dev.memberId), { mode: 'selected', allowedModels: [] })).body.metadata.field, 'allowedModels');
  // another team's member does not exist
  const other = await createTeam(h.app, h.creds.adminToken);
  for (const r of [await owner.get(MEMBER_POLICY(other.owner.memberId)), await owner.put(MEMBER_POLICY(other.owner.memberId), ONLY_SMALL), await owner.delete(MEMBER_POLICY(other.owner.memberId)),
    await owner.put(DEFAULT_KEY_BUDGET, { member_id: other.owner.memberId, budget_type: 'Unlimited' }), await owner.get(DEFAULT_KEY_BUDGET, { member_id: other.owner.memberId })]) {
    assert.deepEqual([r.status, r.body.reason], [404, 'NOT_FOUND'], JSON.stringify(r.body));
  }
  // DELETE: back to the default; the key may call everything again
  assert.equal((await owner.delete(MEMBER_POLICY(dev.memberId))).status, 200);
  assert.equal((await owner.get(MEMBER_POLICY(dev.memberId))).body.policy.source.type, 'default');
});

test('the key policy view shows when the member policy narrows the key: effectivePolicy, and policyStatus over both', async () => {
  const t = await newTeam();
  const owner = as(h.app, t.owner.apiKey);
  const dev = t.members.Developer;
  assert.equal((await owner.get(KEY_POLICY(dev.keyId))).body.effectivePolicy, undefined, 'no member policy: the interface\'s object only');
  assert.equal((await owner.put(MEMBER_POLICY(dev.memberId), ONLY_SMALL)).status, 200);
  let r = await owner.get(KEY_POLICY(dev.keyId));
  assert.equal(r.body.policy.source.type, 'default', 'the key\'s own policy is shown as it is');
  assert.deepEqual(r.body.effectivePolicy, { schemaVersion: 1, productScope: 'model_api', mode: 'selected', allowedModels: [{ type: 'llm', id: SMALL }], excludedModels: [], source: { type: 'member_policy' } });
  assert.equal(r.body.policyStatus, 'active');
  // a key policy the member policy leaves nothing of
  r = await owner.put(KEY_POLICY(dev.keyId), { mode: 'selected', allowedModels: [{ type: 'llm', id: LARGE }] });
  assert.equal(r.status, 200);
  assert.equal(r.body.policyStatus, 'no_available_models');
  assert.deepEqual(r.body.effectivePolicy.allowedModels, []);
  assert.deepEqual((await owner.get(KEY_POLICY(dev.keyId))).body, r.body);
  assert.equal((await as(h.app, dev.apiKey).post('/openai/v1/chat/completions', chat(SMALL))).body.reason, 'ACCESS_DENY', 'both policies apply');
  // two all_enabled policies: what either excludes
  assert.equal((await owner.put(MEMBER_POLICY(dev.memberId), { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: LARGE }] })).status, 200);
  r = await owner.put(KEY_POLICY(dev.keyId), { mode: 'all_enabled', excludedModels: [{ type: 'llm', id: EMBED }] });
  assert.equal(r.body.effectivePolicy.mode, 'all_enabled');
  assert.deepEqual(r.body.effectivePolicy.excludedModels, [{ type: 'llm', id: EMBED }, { type: 'llm', id: LARGE }]);
  // a Developer reading its own key: without the lists, as the policy itself
  const own = (await as(h.app, dev.apiKey).get(KEY_POLICY(dev.keyId))).body;
  assert.deepEqual([own.effectivePolicy.mode, own.effectivePolicy.excludedModels], ['all_enabled', []]);
});

test('a member policy reaches the admission through the change channel: a warm cache is dropped at once', async () => {
  const t = await newTeam();
  const owner = as(h.app, t.owner.apiKey);
  const dev = t.members.Developer;
  const devc = as(h.app, dev.apiKey);
  assert.equal((await devc.post('/openai/v1/chat/completions', chat(LARGE))).status, 200, 'the key and its member policy (none) are cached');
  const changed = h.services.ctx.changes.next('member.policy.changed', (c) => c.memberId === dev.memberId);
  assert.equal((await owner.put(MEMBER_POLICY(dev.memberId), ONLY_SMALL)).status, 200);
  assert.deepEqual(await changed, { type: 'member.policy.changed', teamId: t.userId, memberId: dev.memberId });
  assert.equal((await devc.post('/openai/v1/chat/completions', chat(LARGE))).body.reason, 'ACCESS_DENY');
  const removed = h.services.ctx.changes.next('member.policy.changed', (c) => c.memberId === dev.memberId);
  assert.equal((await owner.delete(MEMBER_POLICY(dev.memberId))).status, 200);
  await removed;
  assert.equal((await devc.post('/openai/v1/chat/completions', chat(LARGE))).status, 200);
});

test('on PostgreSQL, a member policy set through one replica binds the member\'s keys on another', { skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const t = await newTeam();
  const storeB = await openStore({ databaseUrl: h.store.databaseUrl!, poolSize: 2 });
  const b = await buildApp({ config: h.config, store: storeB, clock: new ManualClock(h.clock.nowMs()), logger: false });
  try {
    const dev = t.members.Developer;
    const onB = (path: string, body: unknown) => b.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${dev.apiKey}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    assert.equal((await onB('/openai/v1/chat/completions', chat(LARGE))).statusCode, 200, 'warm on B');
    const arrived = b.services.ctx.changes.next('member.policy.changed', (c) => c.memberId === dev.memberId);
    assert.equal((await as(h.app, t.owner.apiKey).put(MEMBER_POLICY(dev.memberId), ONLY_SMALL)).status, 200);
    await arrived; // LISTEN/NOTIFY, not a TTL
    const r = await onB('/openai/v1/chat/completions', chat(LARGE));
    assert.equal(r.statusCode, 403, r.body);
    assert.equal(JSON.parse(r.body).reason, 'ACCESS_DENY');
  } finally {
    await b.app.close();
    await storeB.close();
  }
});
