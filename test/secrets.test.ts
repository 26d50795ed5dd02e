// Secrets stay secret: a template's image credential, a registry password, API keys (and
// their SHA-256) never appear in a log line or in any read answer, even when the database
// fails in the middle of a request that carries them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as, call } from './helpers/http.ts';
import { createTeam, topup, type Team } from './helpers/factories.ts';
import { sha256Hex } from '../src/lib/ids.ts';
import { ROLES } from '../src/domain/roles.ts';

const BASE = '/gpu-instance/openapi/v1';
const mark = (what: string) => `${what}-${randomBytes(8).toString('hex')}`;
// the planted secrets, and markers in ordinary fields of the same requests: a logged query
// parameter list would carry those too
const TPL_PASSWORD = mark('tplpw');
const REG_PASSWORD = mark('regpw');
const COOKIE = mark('cookie');
const NAME = mark('plain-name');

let h: TestApp;
let team: Team;
let unusedKey: string;
const lines: string[] = [];

before(async () => {
  const logStream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  h = await buildTestApp({ logStream });
  team = await createTeam(h.app, h.creds.adminToken);
  await topup(h.app, h.creds.adminToken, team.userId, 10_000_000);
  const k = await as(h.app, h.creds.adminToken).post(`/admin/v1/members/${team.members.Developer.memberId}/keys`, { name: 'never used' });
  unusedKey = k.body.apiKey;
});
after(() => h.close());

async function exec(statement: ReturnType<typeof sql>): Promise<{ rows: Record<string, string>[] }> {
  return h.store.db.execute(statement) as unknown as Promise<{ rows: Record<string, string>[] }>;
}

/** Runs `fn` while every write to `table` fails in the database (a CHECK that no row passes). */
async function whileWritesFail(table: string, fn: () => Promise<void>): Promise<void> {
  await exec(sql.raw(`alter table ${table} add constraint secrets_test_fails check (false) not valid`));
  try {
    await fn();
  } finally {
    await exec(sql.raw(`alter table ${table} drop constraint secrets_test_fails`));
  }
}

function expect500(r: { status: number; body: any }, where: string): void {
  assert.equal(r.status, 500, `${where}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.reason, 'UNKNOWN');
}

let templateId: string;
let sealed: string[] = [];

test('work that carries secrets, succeeding and failing in the database', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const t = await owner.post(`${BASE}/template/create`, {
    template: { name: NAME, type: 'instance', channel: 'private', image: 'ghcr.io/acme/app:1', rootfsSize: 50, imageAuth: `bob:${TPL_PASSWORD}` },
  });
  assert.equal(t.status, 200, JSON.stringify(t.body));
  templateId = t.body.templateId;
  const reg = await owner.post(`${BASE}/repository/auth/save`, { name: NAME, username: 'bob', password: REG_PASSWORD });
  assert.equal(reg.status, 200);
  const inst = await owner.post(`${BASE}/gpu/instance/create`, { name: NAME, productId: 'prd_rtx4090_24g', gpuNum: 1, kind: 'gpu', templateId });
  assert.equal(inst.status, 200, JSON.stringify(inst.body));
  const inline = await owner.post(`${BASE}/gpu/instance/create`, {
    name: NAME, productId: 'prd_rtx4090_24g', gpuNum: 1, kind: 'gpu', rootfsSize: 50, imageUrl: 'ghcr.io/acme/app:2', imageAuth: `bob:${REG_PASSWORD}`,
  });
  assert.equal(inline.status, 200, JSON.stringify(inline.body));
  await h.services.compute.reconcile();
  sealed = [
    ...(await exec(sql`select image_auth_enc as v from templates where id = ${templateId}`)).rows.map((r) => r.v!),
    ...(await exec(sql`select password_enc as v from registry_auths where team_id = ${team.userId}`)).rows.map((r) => r.v!),
  ];
  assert.ok(sealed.length >= 3 && sealed.every((s) => s.length > 0));

  // the database refuses the write: each request answers 500 and its error is logged
  const current = (await owner.get(`${BASE}/template`, { templateId })).body.template;
  await whileWritesFail('templates', async () => {
    expect500(await owner.post(`${BASE}/template/create`, {
      template: { name: NAME, type: 'instance', channel: 'private', image: 'ghcr.io/acme/app:1', rootfsSize: 50, imageAuth: `bob:${TPL_PASSWORD}` },
    }), 'template create');
    // written back with its mask: the parameters carry the stored sealed credential
    const { createdAt: _c, tools: _t, recommendCards: _r, ...body } = current;
    expect500(await owner.post(`${BASE}/template/update`, { template: body }), 'template update');
  });
  await whileWritesFail('registry_auths', async () => {
    expect500(await owner.post(`${BASE}/repository/auth/save`, { name: NAME, username: 'bob', password: REG_PASSWORD }), 'registry auth save');
  });
  await whileWritesFail('api_keys', async () => {
    // the new key's secret hash is one of the failed insert's parameters
    expect500(await owner.post('/openapi/v1/user/keys', { name: NAME }), 'key create');
  });
  // the key lookup itself fails: its parameter is the presented key's hash
  await exec(sql.raw('alter table api_keys rename to api_keys_away'));
  try {
    const r = await h.app.inject({
      method: 'GET', url: '/openapi/v1/user/quota/list',
      headers: { authorization: `Bearer ${unusedKey}`, cookie: `session=${COOKIE}`, 'x-api-key': unusedKey },
    });
    assert.equal(r.statusCode, 500, r.body);
  } finally {
    await exec(sql.raw('alter table api_keys_away rename to api_keys'));
  }
  // the answer to a refused secret never quotes it
  for (const [url, body, field] of [
    [`${BASE}/template/create`, { template: { name: 'x', type: 'instance', channel: 'private', image: 'i', rootfsSize: 1, imageAuth: TPL_PASSWORD } }, 'template.imageAuth'],
    [`${BASE}/template/create`, { template: { name: 'x', type: 'instance', channel: 'private', image: 'i', rootfsSize: 1, imageAuth: `bob:${TPL_PASSWORD}${'x'.repeat(250)}` } }, 'template.imageAuth'],
    [`${BASE}/repository/auth/save`, { name: 'x', username: 'bob', password: REG_PASSWORD + 'x'.repeat(4096) }, 'password'],
    [`${BASE}/gpu/instance/create`, { productId: 'prd_rtx4090_24g', gpuNum: 1, kind: 'gpu', rootfsSize: 50, imageUrl: 'i', imageAuth: REG_PASSWORD }, 'imageAuth'],
  ] as const) {
    const r = await owner.post(url, body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.metadata.field, field);
    assert.ok(!JSON.stringify(r.body).includes(TPL_PASSWORD) && !JSON.stringify(r.body).includes(REG_PASSWORD), JSON.stringify(r.body));
  }
});

function planted(): string[] {
  const keys = [team.owner.apiKey, team.members.Basic.apiKey, unusedKey, h.creds.adminToken];
  return [TPL_PASSWORD, REG_PASSWORD, COOKIE, ...keys, ...keys.map(sha256Hex), ...sealed];
}

test('the logs hold the failures but no secret and no query parameter', () => {
  const entries = lines.map((l) => JSON.parse(l));
  const failed = entries.filter((e) => e.msg === 'request failed');
  assert.ok(failed.length >= 5, `logged failures: ${failed.length}`);
  assert.ok(failed.some((e) => /^Failed query: insert into "templates"/.test(e.err?.message)), 'the failed query is named (its SQL, no values)');
  assert.ok(failed.some((e) => e.err?.cause?.constraint === 'secrets_test_fails'), 'the database error names its constraint');
  const text = lines.join('\n');
  for (const s of [...planted(), NAME]) assert.ok(!text.includes(s), `the log carries ${s.slice(0, 12)}…`);
  assert.ok(!/"(params|detail|parameters)":/.test(text), 'no parameter list or row detail is logged');
});

test('no read answer of any route, by any role or the operator, carries a secret', async () => {
  const ids: Record<string, string> = {
    memberId: team.owner.memberId, keyId: team.owner.keyId, stringId: team.owner.keyId, userId: team.userId,
  };
  const query = {
    templateId, instanceId: '', member_id: team.owner.memberId, channel: 'private', isMyCommunity: 'true', pageSize: '100',
  };
  const instances = (await as(h.app, team.owner.apiKey).get(`${BASE}/gpu/instances`, { pageSize: 100 })).body.instances;
  const answers: string[] = [];
  const reads = h.routes.filter((r) => r.method === 'GET' && (r.auth?.kind === 'key' || r.auth?.kind === 'operator' || r.url === '/openapi.json'));
  assert.ok(reads.length > 20);
  for (const r of reads) {
    const url = r.url.replace(/:([A-Za-z_]+)/g, (_, p: string) => ids[p] ?? 'x').replace(/\*$/, 'org/model');
    const tokens = r.auth?.kind === 'operator' ? [h.creds.adminToken] : ROLES.map((role) => team.members[role].apiKey);
    for (const token of tokens) {
      for (const instanceId of [instances[0].id, instances[1].id]) {
        const res = await call(h.app, 'GET', url, { token, query: { ...query, instanceId } });
        answers.push(`${r.url} ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }
  const text = answers.join('\n');
  assert.ok(text.includes('bob:****'), 'the template was read, masked');
  assert.ok(text.includes(templateId) && text.includes(instances[0].id));
  for (const s of planted()) assert.ok(!text.includes(s), `a read carries ${s.slice(0, 12)}…`);
});
