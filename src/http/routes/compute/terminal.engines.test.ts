// The web terminal through HTTP (issue 31): an instance running on the docker driver, against
// a dockerd and a Podman of the test's own (test/helpers/engines.ts). Its
// connectComponentWebTerminal.url opens a shell (a WebSocket client, as a browser's) that runs
// a command and answers its output; the start size and a resize reach the TTY (`stty size`);
// the ticket is used once; closing the socket ends the shell and what it started (the
// container's processes, from the engine's /top); a shell that exits closes the socket. Refused,
// with the GPU family's statuses: a plain GET, a forged or expired ticket, another team's
// instance, a role that may not operate instances (given no URL; a ticket made for it), a
// member demoted, disabled or whose key was revoked after getting the URL, a stopped instance;
// a terminal open when its key is revoked closes (4003) and its shell's processes go.
// And on the sim driver, which has no terminals, the instance says isRunning false, url ''.
// Skipped with the reason where an engine is missing or the test is not root, never under
// GANTRY_TEST_REQUIRE_ENGINES=1 (CI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../../../test/helpers/app.ts';
import { engineSkip, startEngine, type EngineKind } from '../../../../test/helpers/engines.ts';
import { createTeam, type Team } from '../../../../test/helpers/factories.ts';
import { as, call } from '../../../../test/helpers/http.ts';
import { until } from '../../../../test/helpers/wait.ts';
import { openTerminal as open, refusal, type Term } from '../../../../test/helpers/terminal-client.ts';
import { fixture } from '../../../../test/helpers/compute-fixture.ts';
import { dockerApp, GPU_BASE, runningInstance } from '../../../../test/helpers/docker-instance.ts';
import { TERMINAL_PATH, TERMINAL_TICKET_TTL_MS } from '../../../domain/terminals/terminals.ts';
import { ACCESS_WITHDRAWN } from '../../terminal-socket.ts';

const BASE = GPU_BASE;

async function seen(t: Term, text: string, what = text): Promise<void> {
  await until(`the terminal shows ${what}`, () => t.out().includes(text), { limitMs: 15_000 });
}

for (const kind of ['dockerd', 'podman'] as const satisfies EngineKind[]) {
  test(`web terminal (${kind}): a running instance's URL opens a shell; resize; one use; closing ends its processes; every refusal`, {
    skip: engineSkip(kind), timeout: 300_000,
  }, async (t) => {
    const engine = await startEngine(kind);
    let h: TestApp | undefined;
    t.after(async () => {
      await h?.close();
      await engine.stop();
    });
    const d = await dockerApp(engine, 'gantry-term');
    h = d.app;
    const { app, team } = d;
    const other = await createTeam(app.app, app.creds.adminToken);
    const owner = as(app.app, team.owner.apiKey);
    const id = await runningInstance(d, engine, 'term');
    const view = async (token = team.owner.apiKey) => (await call(app.app, 'GET', `${BASE}/gpu/instance`, { token, query: { instanceId: id } })).body;
    const urlOf = async (token = team.owner.apiKey) => (await view(token)).connectComponentWebTerminal.url as string;

    // the URL, and a shell that answers
    const terminal = (await view()).connectComponentWebTerminal;
    assert.equal(terminal.isRunning, true);
    assert.match(terminal.url, new RegExp(`^ws://127\\.0\\.0\\.1:\\d+${TERMINAL_PATH}\\?ticket=t1\\.[\\w-]+\\.[\\w-]+$`));
    const term = await open(`${terminal.url}&cols=100&rows=30`);
    term.send('echo gantry-$((6*7))\n');
    await seen(term, 'gantry-42');
    // the size given at the start, then a resize (a control frame); the command is sent again until the TTY has the new size
    term.send('echo size-$(stty size | tr " " x)\n');
    await seen(term, 'size-30x100');
    term.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
    await until('stty size shows the new size', () => {
      if (term.out().includes('size-40x120')) return true;
      term.send('echo size-$(stty size | tr " " x)\n');
      return false;
    }, { limitMs: 15_000, everyMs: 200 });
    // a process started from the shell, in the background: it goes with the terminal
    term.send('sleep 4242 &\necho started-$((40+2))\n');
    await seen(term, 'started-42');
    const top = async () => JSON.stringify((await engine.api('GET', `/containers/${id}/top`)).json.Processes);
    assert.match(await top(), /sleep 4242/);
    assert.match(await top(), /\/bin\/sh/);
    // the ticket was used
    assert.deepEqual(await refusal(terminal.url), [401, 'UNAUTHORIZED']);
    term.ws.close();
    await term.closed;
    await until('the shell and what it started are gone', async () => {
      const p = await top();
      return !p.includes('4242') && !p.includes('/bin/sh') && p.includes('sleep 3600');
    }, { limitMs: 15_000, everyMs: 100 });

    // a shell that exits closes the socket
    const quitting = await open(await urlOf());
    quitting.send('exit\n');
    assert.equal(await quitting.closed, 1000);

    // refusals: a plain GET (no WebSocket), a forged ticket, an expired one
    const plain = await call(app.app, 'GET', TERMINAL_PATH, { query: { ticket: new URL(await urlOf()).searchParams.get('ticket')! } });
    assert.deepEqual([plain.status, plain.body.reason], [400, 'VALIDATOR_PARAM']);
    const url = await urlOf();
    const forged = url.replace(/\.([\w-])([\w-]*)$/, (_m, c: string, rest: string) => `.${c === 'A' ? 'B' : 'A'}${rest}`);
    assert.notEqual(forged, url);
    assert.deepEqual(await refusal(forged), [401, 'UNAUTHORIZED']);
    assert.deepEqual(await refusal(url.replace('ticket=', 'ticket=x')), [401, 'UNAUTHORIZED']);
    const expiring = await urlOf();
    app.clock.advance(TERMINAL_TICKET_TTL_MS + 1);
    assert.deepEqual(await refusal(expiring), [401, 'UNAUTHORIZED']);

    // another team: its members do not see the instance, and a ticket signed for one of them does not open it
    assert.equal((await call(app.app, 'GET', `${BASE}/gpu/instance`, { token: other.owner.apiKey, query: { instanceId: id } })).status, 400);
    const tickets = app.services.terminals.tickets;
    const base = url.slice(0, url.indexOf('?'));
    const otherTicket = tickets.issue({ instanceId: id, teamId: other.userId, memberId: other.owner.memberId, keyId: other.owner.keyId });
    assert.deepEqual(await refusal(`${base}?ticket=${otherTicket}`), [400, 'RESOURCE_NOT_FOUND']);
    const borrowed = tickets.issue({ instanceId: id, teamId: team.userId, memberId: team.owner.memberId, keyId: other.owner.keyId });
    assert.deepEqual(await refusal(`${base}?ticket=${borrowed}`), [401, 'UNAUTHORIZED']);

    // roles that may not operate instances get no URL; a ticket made for one is refused
    for (const role of ['Basic', 'Billing'] as const) {
      const m = team.members[role];
      if (role === 'Basic') assert.deepEqual((await view(m.apiKey)).connectComponentWebTerminal, { isRunning: false, url: '' });
      const ticket = tickets.issue({ instanceId: id, teamId: team.userId, memberId: m.memberId, keyId: m.keyId });
      assert.deepEqual(await refusal(`${base}?ticket=${ticket}`), [403, 'FORBIDDEN'], role);
    }
    // members who got a URL and then were demoted, disabled, or had the key revoked
    await checkRevocations(app, team, owner, urlOf, top);

    // a stopped instance: no URL, and one taken while it ran is refused
    const late = await urlOf();
    assert.equal((await owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
    await until(`${id} exits`, async () => {
      app.clock.advance(200);
      await app.services.compute.reconcile();
      return (await view()).status === 'exited';
    }, { limitMs: 60_000, everyMs: 100 });
    assert.deepEqual((await view()).connectComponentWebTerminal, { isRunning: false, url: '' });
    assert.deepEqual(await refusal(late), [400, 'VALIDATOR_PARAM']);
  });
}

async function checkRevocations(app: TestApp, team: Team, owner: ReturnType<typeof as>, urlOf: (token?: string) => Promise<string>, top: () => Promise<string>): Promise<void> {
  const admin = as(app.app, app.creds.adminToken);
  const dev = team.members.Developer;
  const demoted = await urlOf(dev.apiKey);
  assert.notEqual(demoted, '');
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${dev.memberId}/role`, { role: 'Basic' })).status, 200);
  assert.deepEqual(await refusal(demoted), [403, 'FORBIDDEN']);
  const adm = team.members.Admin;
  const disabled = await urlOf(adm.apiKey);
  assert.equal((await owner.post(`/openapi/v1/user/team/members/${adm.memberId}/disable`, {})).status, 200);
  assert.deepEqual(await refusal(disabled), [401, 'UNAUTHORIZED']);
  const k = await admin.post(`/admin/v1/members/${team.owner.memberId}/keys`, { name: 'to-revoke' });
  assert.equal(k.status, 200, JSON.stringify(k.body));
  const revoked = await urlOf(k.body.apiKey);
  assert.equal((await admin.post(`/admin/v1/keys/${k.body.keyId}/revoke`, {})).status, 200);
  assert.deepEqual(await refusal(revoked), [401, 'UNAUTHORIZED']);
  // a terminal open when its key is revoked closes (4003), and its shell and what it started go
  const later = await admin.post(`/admin/v1/members/${team.owner.memberId}/keys`, { name: 'revoked-while-open' });
  const term = await open(await urlOf(later.body.apiKey));
  term.send('sleep 4343 &\necho started-$((40+3))\n');
  await seen(term, 'started-43');
  assert.match(await top(), /sleep 4343/);
  assert.equal((await admin.post(`/admin/v1/keys/${later.body.keyId}/revoke`, {})).status, 200);
  assert.equal(await term.closed, ACCESS_WITHDRAWN);
  assert.equal(await term.reason, 'the API key is invalid or has been revoked');
  await until('the revoked terminal\'s shell and what it started are gone', async () => !(await top()).includes('4343'), { limitMs: 15_000, everyMs: 100 });
}

test('web terminal: on the sim driver (no terminals) a running instance says isRunning false, url \'\'', { timeout: 120_000 }, async () => {
  const f = await fixture();
  try {
    const id = await f.create();
    const running = await f.until(id, 'running');
    assert.deepEqual(running.connectComponentWebTerminal, { isRunning: false, url: '' });
  } finally {
    await f.close();
  }
});
