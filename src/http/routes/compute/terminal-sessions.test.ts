// Web terminals as live sessions (issue 40), through the real route and WebSocket with no
// engine: the sim driver is given terminals by the test (test/helpers/fake-terminal.ts), so
// everything but the shell is Gantry's own path (tickets, the connect's checks, the live
// sessions, the bridge). An open terminal closes (4003, the reason saying why) as soon as its
// key is revoked, its member disabled or demoted to a role that may not operate instances, or
// its team suspended, and on every replica: a second app on the same store, its change channel
// linked (PGlite) or PostgreSQL's LISTEN/NOTIFY (TEST_DATABASE_URL). Terminals open at once are
// capped per instance and per team: 429 before the upgrade, naming the limit; a closed or
// refused one holds no place. On real engines: terminal.engines.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../../app.ts';
import { SimDriver } from '../../../drivers/sim/driver.ts';
import { BASE, fixture, type Fixture } from '../../../../test/helpers/compute-fixture.ts';
import { linkReplicas } from '../../../../test/helpers/change-hub.ts';
import { withTerminals, type FakeSession } from '../../../../test/helpers/fake-terminal.ts';
import { as } from '../../../../test/helpers/http.ts';
import { openTerminal, refusedWith, type Term } from '../../../../test/helpers/terminal-client.ts';
import { until } from '../../../../test/helpers/wait.ts';
import { ACCESS_WITHDRAWN } from '../../../http/terminal-socket.ts';

interface Terminals {
  f: Fixture;
  /** the fake shells the driver opened, in order */
  opened: { instanceId: string; session: FakeSession }[];
  running(): Promise<string>;
  /** connectComponentWebTerminal.url of the instance for the key's caller */
  urlOf(id: string, key?: string): Promise<string>;
}

async function terminals(env: Record<string, string> = {}): Promise<Terminals> {
  const f = await fixture({ env });
  const opened = withTerminals(f.sim);
  f.t.config.serverless.publicBaseUrl = await f.t.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    f, opened,
    running: async () => {
      const id = await f.create();
      await f.until(id, 'running');
      return id;
    },
    urlOf: async (id, key = f.team.owner.apiKey) => {
      const r = await as(f.t.app, key).get(`${BASE}/gpu/instance`, { instanceId: id });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.notEqual(r.body.connectComponentWebTerminal.url, '', 'a URL for this caller');
      return r.body.connectComponentWebTerminal.url;
    },
  };
}

/** The close code and reason, which must come within a few seconds of the change (no clock is advanced). */
async function closedWithin(term: Term, what: string): Promise<[number, string]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the terminal was still open 5 s after the change`)), 5000);
  });
  try {
    return await Promise.race([Promise.all([term.closed, term.reason]), late]);
  } finally {
    clearTimeout(timer);
  }
}

const isOpen = (term: Term) => term.ws.readyState === term.ws.OPEN;

test('an open terminal closes (4003, saying why) once its key is revoked, its member disabled or demoted, or its team suspended', { timeout: 180_000 }, async (t) => {
  const h = await terminals({ GANTRY_TERMINALS_PER_INSTANCE: '10' });
  t.after(() => h.f.close());
  const { f } = h;
  const id = await h.running();
  const owner = as(f.t.app, f.team.owner.apiKey);
  const admin = as(f.t.app, f.t.creds.adminToken);
  const { Developer: dev, Admin: adm } = f.team.members;
  const extra = await admin.post(`/admin/v1/members/${f.team.owner.memberId}/keys`, { name: 'to-revoke' });
  assert.equal(extra.status, 200, JSON.stringify(extra.body));

  const ownTerm = await openTerminal(await h.urlOf(id));
  const devTerm = await openTerminal(await h.urlOf(id, dev.apiKey));
  const admTerm = await openTerminal(await h.urlOf(id, adm.apiKey));
  const keyTerm = await openTerminal(await h.urlOf(id, extra.body.apiKey));
  assert.equal(h.opened.length, 4);
  const shellOf = (n: number) => h.opened[n]!.session;

  // the key revoked: its terminal closes, and its shell with it; the others stay
  assert.equal((await admin.post(`/admin/v1/keys/${extra.body.keyId}/revoke`, {})).status, 200);
  assert.deepEqual(await closedWithin(keyTerm, 'revoked key'), [ACCESS_WITHDRAWN, 'the API key is invalid or has been revoked']);
  await until('the revoked key\'s shell is closed', () => shellOf(3).closed === 1);
  assert.ok(isOpen(ownTerm) && isOpen(devTerm) && isOpen(admTerm), 'the other terminals are open');

  // a role that may still operate instances keeps its terminal; one that may not loses it
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${adm.memberId}/role`, { role: 'Developer' })).status, 200);
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${dev.memberId}/role`, { role: 'Basic' })).status, 200);
  assert.deepEqual(await closedWithin(devTerm, 'demoted to Basic'), [ACCESS_WITHDRAWN, 'role Basic may not open an instance\'s terminal']);
  await f.t.services.liveSessions.settled();
  assert.ok(isOpen(admTerm), 'the Admin made Developer may still operate instances');
  admTerm.send('still here\n');
  await until('the Developer\'s keystrokes still reach the shell', () => shellOf(2).typed === 'still here\n');

  // the member disabled
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${adm.memberId}/disable`, {})).status, 200);
  assert.deepEqual(await closedWithin(admTerm, 'member disabled'), [ACCESS_WITHDRAWN, 'the API key is invalid or has been revoked']);

  // the team suspended: the Owner's terminal too
  assert.ok(isOpen(ownTerm));
  assert.equal((await admin.post(`/admin/v1/teams/${f.team.userId}/suspend`, {})).status, 200);
  assert.deepEqual(await closedWithin(ownTerm, 'team suspended'), [ACCESS_WITHDRAWN, 'the account is suspended']);
  await until('every shell is closed', () => h.opened.every((o) => o.session.closed === 1));
  assert.equal(f.t.services.liveSessions.count(`terminal:team:${f.team.userId}`), 0, 'no session is left registered');
});

test('terminals open at once are capped per instance and per team: 429 before the upgrade, naming the limit; a closed or refused one holds no place', { timeout: 180_000 }, async (t) => {
  const h = await terminals({ GANTRY_TERMINALS_PER_INSTANCE: '2', GANTRY_TERMINALS_PER_TEAM: '3' });
  t.after(() => h.f.close());
  const { f } = h;
  const [one, two] = [await h.running(), await h.running()];
  const a = await openTerminal(await h.urlOf(one));
  await openTerminal(await h.urlOf(one));
  let r = await refusedWith(await h.urlOf(one));
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.body.reason, 'RATE_LIMIT_EXCEEDED');
  assert.deepEqual([r.body.metadata?.rule, r.body.metadata?.limit], ['terminals_per_instance', 2]);
  assert.match(r.body.message!, new RegExp(`instance ${one} has 2 terminals open, the most it may have at once`));
  assert.equal(r.headers['retry-after'], '5');
  assert.equal(h.opened.length, 2, 'the driver opened no shell for the refused one');

  await openTerminal(await h.urlOf(two));
  r = await refusedWith(await h.urlOf(two));
  assert.deepEqual([r.status, r.body.metadata?.rule, r.body.metadata?.limit], [429, 'terminals_per_team', 3]);
  assert.equal(f.t.services.liveSessions.count(`terminal:team:${f.team.userId}`), 3);

  // a refusal for another reason takes no place: a Basic member's ticket (made for the test)
  const ticket = f.t.services.terminals.tickets.issue({ instanceId: two, teamId: f.team.userId, memberId: f.team.members.Basic.memberId, keyId: f.team.members.Basic.keyId });
  const url = await h.urlOf(two);
  a.ws.close();
  await until('the closed terminal gives its places back', () => f.t.services.liveSessions.count(`terminal:instance:${one}`) === 1);
  const basic = await refusedWith(`${url.slice(0, url.indexOf('?'))}?ticket=${ticket}`);
  assert.deepEqual([basic.status, basic.body.reason], [403, 'FORBIDDEN']);
  assert.equal(f.t.services.liveSessions.count(`terminal:team:${f.team.userId}`), 2);
  const again = await openTerminal(url);
  assert.ok(isOpen(again), 'a place freed by a closed terminal opens a new one');
});

test('every replica: a terminal on a second app (one store, the change channel shared) closes when its key is revoked through the first', { timeout: 180_000 }, async (t) => {
  const h = await terminals();
  const { f } = h;
  const driver = new SimDriver(f.t.clock);
  const onB = withTerminals(driver);
  const b = await buildApp({ config: f.t.config, store: f.t.store, clock: f.t.clock, logger: false, computeDriver: driver });
  t.after(async () => {
    await b.app.close();
    await f.close();
  });
  await linkReplicas(f.t.store, [f.t.services.ctx.changes, b.services.ctx.changes]);
  const baseB = await b.app.listen({ host: '127.0.0.1', port: 0 });
  const id = await h.running();
  const key = await as(f.t.app, f.t.creds.adminToken).post(`/admin/v1/members/${f.team.owner.memberId}/keys`, { name: 'on-b' });
  // the URL from A, opened on B (the ticket is signed with the key every replica derives alike)
  const url = new URL(await h.urlOf(id, key.body.apiKey));
  const term = await openTerminal(`${baseB.replace(/^http/, 'ws')}${url.pathname}${url.search}`);
  assert.equal(onB.length, 1, 'the shell is B\'s');
  assert.equal(h.opened.length, 0);
  const before = b.services.ctx.changes.received.get('key.changed') ?? 0;
  assert.equal((await as(f.t.app, f.t.creds.adminToken).post(`/admin/v1/keys/${key.body.keyId}/revoke`, {})).status, 200);
  assert.deepEqual(await closedWithin(term, 'revoked on the other replica'), [ACCESS_WITHDRAWN, 'the API key is invalid or has been revoked']);
  assert.ok((b.services.ctx.changes.received.get('key.changed') ?? 0) > before, 'B learnt it from the change channel');
  await until('B\'s shell is closed', () => onB[0]!.session.closed === 1);
});
