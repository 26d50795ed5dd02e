// Persons through HTTP as a person sees them (the mail port records; SMTP itself is
// test/people-smtp.test.ts): sign-up and its confirm link, sign-in with a session cookie, the
// same answers whether or not an address has an account, one-time links (single use under
// concurrency, short-lived, bound to their purpose), passwords, sessions, invitations and
// teams, and a person's session acting through the roles as API keys do.
import { test, before, after } from 'node:test';
import { PassThrough } from 'node:stream';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { linkToken, RecordingMailer } from '../../../../test/helpers/mail.ts';
import { hashPassword, SCRYPT_DEFAULTS, verifyPassword } from '../../../lib/passwords.ts';

// scrypt at N=2^12 (the production default, 2^15, is lib/passwords.test.ts's): the rules are the same, each hash 8× quicker
const FAST_HASHES = { GANTRY_PASSWORD_SCRYPT_LN: '12' };
let h: TestApp;
const mail = new RecordingMailer();
before(async () => {
  h = await buildTestApp({ env: { GANTRY_SIGNUP: 'open', ...FAST_HASHES }, mailer: mail });
});
after(() => h.close());

interface Answer { status: number; body: any; setCookie: string; cookie: string | undefined }
interface Session { cookie: string; csrf: string; body: any }

async function send(method: string, url: string, body?: unknown, s?: Session, app = h): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (s) {
    headers.cookie = s.cookie;
    headers['x-csrf-token'] = s.csrf;
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await app.app.inject({ method: method as 'GET', url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
  const setCookie = String(res.headers['set-cookie'] ?? '');
  const m = /^gantry_session=([A-Za-z0-9_-]+);/.exec(setCookie);
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, setCookie, cookie: m ? `gantry_session=${m[1]}` : undefined };
}

function session(a: Answer): Session {
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.ok(a.cookie, a.setCookie);
  return { cookie: a.cookie, csrf: a.body.csrfToken, body: a.body };
}

/** Run the mail jobs now, as a runner would. */
async function deliver(app = h): Promise<void> {
  await app.services.jobs.runDue();
}

let seq = 0;
const address = (what: string) => `${what}-${++seq}@example.com`;

/** A person with a team of their own, signed in (through sign-up and the confirm link). */
async function person(email = address('p'), password = 'correct horse battery'): Promise<Session & { email: string; password: string }> {
  assert.equal((await send('POST', '/console/sign-up', { email, password })).status, 202);
  await deliver();
  const token = linkToken(mail.to(email).at(-1)!.text, 'confirm');
  return { ...session(await send('POST', '/console/confirm', { token, password })), email, password };
}

test('sign-up sends a confirm link; following it with the password makes the account, a T1 team it owns, and signs in (HttpOnly, SameSite=Lax)', async () => {
  const email = address('new');
  const up = await send('POST', '/console/sign-up', { email: `  ${email.toUpperCase()} `, password: 'correct horse battery' });
  assert.deepEqual([up.status, up.body], [202, {}]);
  assert.equal(up.cookie, undefined, 'nothing is signed in before the address is proven');
  await deliver();
  const [message] = mail.to(email);
  assert.ok(message, 'the address, normalized, got the message');
  assert.match(message.subject, /Confirm/);
  const token = linkToken(message.text, 'confirm');
  assert.ok(message.text.includes(`${h.config.serverless.publicBaseUrl}/console/#/confirm?token=`), 'the link points at the console, the token in its fragment');

  const wrong = await send('POST', '/console/confirm', { token, password: 'not the one chosen' });
  assert.equal(wrong.status, 401, 'whoever follows the link knows the password chosen at sign-up');
  const s = session(await send('POST', '/console/confirm', { token, password: 'correct horse battery' }));
  assert.match(s.cookie, /^gantry_session=/);
  const attrs = (await send('POST', '/console/session', { email, password: 'correct horse battery' })).setCookie;
  assert.match(attrs, /; HttpOnly/);
  assert.match(attrs, /; SameSite=Lax/);
  assert.doesNotMatch(attrs, /Secure/, 'plain http: GANTRY_PUBLIC_URL is not https');
  assert.equal(s.body.kind, 'person');
  assert.equal(s.body.principal.role, 'Owner');
  assert.equal(s.body.person.email, email);
  assert.equal(s.body.person.emailVerified, true);
  assert.equal(s.body.person.teams.length, 1);
  assert.match(s.body.principal.keyId, /^ses_/, 'what the session does is recorded under the session');
  const team = await as(h.app, h.creds.adminToken).get(`/admin/v1/teams/${s.body.principal.teamId}`);
  assert.equal(team.body.tier, 'T1');
  const members = await send('GET', '/openapi/v1/user/team/members', undefined, s);
  assert.deepEqual(members.body.members.map((m: any) => [m.email, m.role, m.status]), [[email, 'Owner', 'active']]);

  const again = await send('POST', '/console/confirm', { token, password: 'correct horse battery' });
  assert.equal(again.status, 401, 'a link works once');
});

test('sign-in, sign-up and forgot-password answer the same whether or not the address has an account', async () => {
  const known = await person();
  const unknown = address('nobody');
  const before = mail.sent.length;

  const upKnown = await send('POST', '/console/sign-up', { email: known.email, password: 'another password' });
  const upUnknown = await send('POST', '/console/sign-up', { email: unknown, password: 'another password' });
  assert.deepEqual([upKnown.status, upKnown.body], [upUnknown.status, upUnknown.body]);

  const forgotKnown = await send('POST', '/console/password/forgot', { email: known.email });
  const forgotUnknown = await send('POST', '/console/password/forgot', { email: address('nobody') });
  assert.deepEqual([forgotKnown.status, forgotKnown.body], [forgotUnknown.status, forgotUnknown.body]);
  assert.deepEqual([forgotKnown.status, forgotKnown.body], [202, {}]);

  const inKnown = await send('POST', '/console/session', { email: known.email, password: 'wrong password!' });
  const inUnknown = await send('POST', '/console/session', { email: unknown, password: 'wrong password!' });
  assert.equal(inKnown.status, 401);
  assert.deepEqual([inKnown.status, inKnown.body], [inUnknown.status, inUnknown.body]);

  await deliver();
  const sent = mail.sent.slice(before);
  assert.deepEqual(sent.map((m) => [m.to, m.subject]).sort(), [
    [known.email, 'Reset your Gantry password'],
    [known.email, 'You already have a Gantry account'],
    [unknown, 'Confirm your e-mail address for Gantry'],
  ].sort(), 'the owner of an account is told; an unknown address gets no reset');
  assert.ok(!sent.find((m) => m.subject.startsWith('You already'))!.text.includes('token='), 'no link to an account that exists');
});

test('a sign-in for an address without an account costs the scrypt of one with an account (no timing oracle)', async () => {
  const time = async (email: string) => {
    const t0 = performance.now();
    assert.equal((await send('POST', '/console/session', { email, password: 'wrong password!' })).status, 401);
    return performance.now() - t0;
  };
  await time(address('warm')); // the dummy hash is made once, at the first such sign-in
  const unknownMs: number[] = [];
  const hashMs: number[] = [];
  const stored = await hashPassword('anything at all', { ...SCRYPT_DEFAULTS, ln: 12 });
  for (let i = 0; i < 5; i++) {
    unknownMs.push(await time(address('nobody')));
    const t0 = performance.now();
    await verifyPassword(stored, 'wrong password!');
    hashMs.push(performance.now() - t0);
  }
  // the fastest of each: a busy machine only adds time, so the minimum is the work itself. Without
  // the dummy hash an unknown address answers after one indexed lookup, well under one scrypt.
  assert.ok(Math.min(...unknownMs) > Math.min(...hashMs) * 0.6, `unknown ${unknownMs.map(Math.round).join(',')} ms, one scrypt ${hashMs.map(Math.round).join(',')} ms`);
});

test('signing in makes a new session and ends the one the browser had', async () => {
  const p = await person();
  const first = session(await send('POST', '/console/session', { email: p.email, password: p.password }));
  const second = session(await send('POST', '/console/session', { email: p.email, password: p.password }, first));
  assert.notEqual(second.cookie, first.cookie);
  assert.notEqual(second.csrf, first.csrf);
  assert.equal((await send('GET', '/console/session', undefined, first)).status, 401, 'the cookie from before the sign-in is worthless');
  assert.equal((await send('GET', '/console/session', undefined, second)).status, 200);
});

test('a reset link works once (of two concurrent uses one wins), for an hour, and for resetting only; it signs every session out', async () => {
  const p = await person();
  await send('POST', '/console/password/forgot', { email: p.email });
  await deliver();
  const token = linkToken(mail.to(p.email).at(-1)!.text, 'reset');

  assert.equal((await send('POST', '/console/confirm', { token, password: p.password })).status, 401, 'a reset token confirms nothing');
  const [a, b] = await Promise.all([
    send('POST', '/console/password/reset', { token, password: 'new password one' }),
    send('POST', '/console/password/reset', { token, password: 'new password two' }),
  ]);
  assert.deepEqual([a.status, b.status].sort(), [200, 401], `${JSON.stringify(a.body)} ${JSON.stringify(b.body)}`);
  const winner = a.status === 200 ? 'new password one' : 'new password two';
  assert.equal((await send('GET', '/console/session', undefined, p)).status, 401, 'the reset signed every session out');
  assert.equal((await send('POST', '/console/session', { email: p.email, password: p.password })).status, 401, 'the old password is gone');
  session(await send('POST', '/console/session', { email: p.email, password: winner }));

  await send('POST', '/console/password/forgot', { email: p.email });
  await deliver();
  const late = linkToken(mail.to(p.email).at(-1)!.text, 'reset');
  h.clock.advance(3_600_000);
  assert.equal((await send('POST', '/console/password/reset', { token: late, password: 'too late password' })).status, 401, 'an hour later the link has expired');
});

test('changing the password signs the other sessions out and makes this one anew', async () => {
  const p = await person();
  const other = session(await send('POST', '/console/session', { email: p.email, password: p.password }));
  const here = session(await send('POST', '/console/session', { email: p.email, password: p.password }));
  const wrong = await send('POST', '/console/password', { currentPassword: 'not it at all', newPassword: 'brand new password' }, here);
  assert.equal(wrong.status, 401);
  const noCsrf = await send('POST', '/console/password', { currentPassword: p.password, newPassword: 'brand new password' }, { ...here, csrf: 'x'.repeat(32) });
  assert.equal(noCsrf.status, 403);
  const changed = session(await send('POST', '/console/password', { currentPassword: p.password, newPassword: 'brand new password' }, here));
  assert.equal((await send('GET', '/console/session', undefined, other)).status, 401);
  assert.equal((await send('GET', '/console/session', undefined, here)).status, 401, 'rotated');
  assert.equal((await send('GET', '/console/session', undefined, changed)).status, 200);
});

test('a person lists their sessions and signs any of them out', async () => {
  const p = await person();
  const other = session(await send('POST', '/console/session', { email: p.email, password: p.password }));
  const listed = await send('GET', '/console/sessions', undefined, p);
  assert.equal(listed.status, 200);
  assert.equal(listed.body.sessions.length, 2);
  const mine = listed.body.sessions.find((x: any) => x.current);
  const theirs = listed.body.sessions.find((x: any) => !x.current);
  assert.equal(mine.sessionId, p.body.principal.keyId);
  assert.equal((await send('DELETE', `/console/sessions/${theirs.sessionId}`, undefined, p)).status, 200);
  assert.equal((await send('GET', '/console/session', undefined, other)).status, 401);
  const stranger = await person();
  assert.equal((await send('DELETE', `/console/sessions/${mine.sessionId}`, undefined, stranger)).status, 404, 'another person\'s session is not found');
  assert.equal((await send('GET', '/console/session', undefined, p)).status, 200);
});

test('invitations: an Owner invites an address with a role; the seat is invited until the link is accepted, then active with the real e-mail', async () => {
  const owner = await person();
  const invitee = address('invitee');
  const sent = await send('POST', '/console/invitations', { email: invitee, role: 'Developer' }, owner);
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.equal(sent.body.status, 'pending');
  assert.equal((await send('POST', '/console/invitations', { email: address('x'), role: 'Owner' }, owner)).status, 400, 'never Owner');
  assert.equal((await send('POST', '/console/invitations', { email: invitee, role: 'Basic' }, owner)).status, 409, 'one seat per address');
  let members = await send('GET', '/openapi/v1/user/team/members', undefined, owner);
  assert.deepEqual(members.body.members.find((m: any) => m.email === invitee)?.status, 'invited');

  await deliver();
  const token = linkToken(mail.to(invitee).at(-1)!.text, 'invite');
  assert.equal((await send('POST', '/console/invitations/accept', { token, password: 'short' })).status, 400, 'a new account\'s password is 8 characters or more');
  const accepted = session(await send('POST', '/console/invitations/accept', { token, password: 'invitee password' }));
  assert.equal(accepted.body.principal.teamId, owner.body.principal.teamId);
  assert.equal(accepted.body.principal.role, 'Developer');
  members = await send('GET', '/openapi/v1/user/team/members', undefined, owner);
  assert.deepEqual(members.body.members.find((m: any) => m.email === invitee)?.status, 'active');
  const list = await send('GET', '/console/invitations', undefined, owner);
  assert.equal(list.body.invitations[0].status, 'accepted');
  assert.equal((await send('POST', '/console/invitations/accept', { token, password: 'invitee password' })).status, 401, 'single use');

  // the invitee's session acts through the Developer's role: no member management
  assert.equal((await send('GET', '/openapi/v1/user/team/members', undefined, accepted)).status, 403);
  assert.equal((await send('POST', '/console/invitations', { email: address('y'), role: 'Basic' }, accepted)).status, 403);
});

test('a revoked invitation\'s link does nothing and its seat is gone; an expired one is shown so', async () => {
  const owner = await person();
  const invitee = address('revoked');
  const inv = (await send('POST', '/console/invitations', { email: invitee, role: 'Basic' }, owner)).body;
  await deliver();
  const token = linkToken(mail.to(invitee).at(-1)!.text, 'invite');
  assert.equal((await send('DELETE', `/console/invitations/${inv.invitationId}`, undefined, owner)).status, 200);
  assert.equal((await send('POST', '/console/invitations/accept', { token, password: 'invitee password' })).status, 401);
  const members = await send('GET', '/openapi/v1/user/team/members', undefined, owner);
  assert.ok(!members.body.members.some((m: any) => m.email === invitee));
  assert.equal((await send('DELETE', `/console/invitations/${inv.invitationId}`, undefined, owner)).status, 404);

  const lateAddress = address('late');
  await send('POST', '/console/invitations', { email: lateAddress, role: 'Basic' }, owner);
  h.clock.advance(7 * 86_400_000);
  const later = session(await send('POST', '/console/session', { email: owner.email, password: owner.password })); // sessions last 12 h
  const list = await send('GET', '/console/invitations', undefined, later);
  assert.deepEqual(list.body.invitations.map((i: any) => [i.email, i.status]).sort(), [[invitee, 'revoked'], [lateAddress, 'expired']].sort());
});

test('re-sending an invitation: a new link, the old one refused from then on; an expired one comes back to life; only the team\'s Owner or Admin, never another team', async () => {
  const owner = await person();
  const invitee = address('resent');
  const inv = (await send('POST', '/console/invitations', { email: invitee, role: 'Developer' }, owner)).body;
  await deliver();
  const first = linkToken(mail.to(invitee).at(-1)!.text, 'invite');
  h.clock.advance(7 * 86_400_000); // expired: the first link and the invitation
  const later = session(await send('POST', '/console/session', { email: owner.email, password: owner.password }));
  const stranger = await person();
  assert.equal((await send('POST', `/console/invitations/${inv.invitationId}/resend`, {}, stranger)).status, 404, 'another team\'s invitation is not found');
  const again = await send('POST', `/console/invitations/${inv.invitationId}/resend`, {}, later);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.status, 'pending');
  assert.equal(Date.parse(again.body.expiresAt), h.clock.nowMs() + 7 * 86_400_000);
  await deliver();
  assert.equal(mail.to(invitee).length, 2);
  const second = linkToken(mail.to(invitee).at(-1)!.text, 'invite');
  assert.notEqual(second, first);
  assert.equal((await send('POST', `/console/invitations/${inv.invitationId}/resend`, {}, later)).status, 200);
  assert.equal((await send('POST', '/console/invitations/accept', { token: second, password: 'invitee password' })).status, 401, 'a link sent before the last re-send is refused');
  await deliver();
  const third = linkToken(mail.to(invitee).at(-1)!.text, 'invite');
  const accepted = session(await send('POST', '/console/invitations/accept', { token: third, password: 'invitee password' }));
  assert.equal(accepted.body.principal.role, 'Developer');
  assert.equal((await send('POST', `/console/invitations/${inv.invitationId}/resend`, {}, later)).status, 404, 'an accepted invitation is not re-sent');
});

test('a person in two teams switches between them; each switch makes a new session; a disabled seat ends the session\'s right there', async () => {
  const a = await person();
  const b = await person();
  await send('POST', '/console/invitations', { email: b.email, role: 'Admin' }, a);
  await deliver();
  const token = linkToken(mail.to(b.email).at(-1)!.text, 'invite');
  assert.equal((await send('POST', '/console/invitations/accept', { token, password: 'not b\'s password' })).status, 401, 'an existing account signs in with its own password');
  const inA = session(await send('POST', '/console/invitations/accept', { token, password: b.password }));
  assert.equal(inA.body.principal.teamId, a.body.principal.teamId);
  assert.equal(inA.body.person.teams.length, 2);

  const home = session(await send('POST', '/console/session/team', { teamId: b.body.principal.teamId }, inA));
  assert.equal(home.body.principal.teamId, b.body.principal.teamId);
  assert.equal(home.body.principal.role, 'Owner');
  assert.equal((await send('GET', '/console/session', undefined, inA)).status, 401, 'switching rotates the session');
  assert.equal((await send('POST', '/console/session/team', { teamId: 'usr_nothere' }, home)).status, 403);

  const back = session(await send('POST', '/console/session/team', { teamId: a.body.principal.teamId }, home));
  const seat = back.body.principal.memberId;
  assert.equal((await send('POST', `/openapi/v1/user/team/members/${seat}/disable`, {}, a)).status, 200);
  assert.equal((await send('GET', '/openapi/v1/user/team/members', undefined, back)).status, 401, 'the disabled member\'s session acts no more');
});

test('sign-up is by invitation only by default, and closed takes new accounts from invitations too', async () => {
  const mails = new RecordingMailer();
  const t = await buildTestApp({ env: FAST_HASHES, mailer: mails });
  try {
    const a = await send('POST', '/console/sign-up', { email: address('a'), password: 'correct horse battery' }, undefined, t);
    assert.equal(a.status, 403);
    assert.match(a.body.message, /invitation/);
  } finally {
    await t.close();
  }
  const closed = await buildTestApp({ env: { GANTRY_SIGNUP: 'closed', ...FAST_HASHES }, mailer: mails });
  try {
    const team = await as(closed.app, closed.creds.adminToken).post('/admin/v1/teams', { name: 'c', ownerEmail: 'owner-c@example.com' });
    const key = await as(closed.app, closed.creds.adminToken).post(`/admin/v1/members/${team.body.ownerMemberId}/keys`, { name: 'k' });
    const invitee = address('closed');
    assert.equal((await as(closed.app, key.body.apiKey).post('/console/invitations', { email: invitee, role: 'Basic' })).status, 200, 'an API key invites too');
    await deliver(closed);
    const token = linkToken(mails.to(invitee).at(-1)!.text, 'invite');
    assert.equal((await send('POST', '/console/invitations/accept', { token, password: 'correct horse battery' }, undefined, closed)).status, 403);
  } finally {
    await closed.close();
  }
});

test('failed sign-ins are throttled as other failed authentications: then 429 even with the right password', async () => {
  const mails = new RecordingMailer();
  const t = await buildTestApp({ env: { GANTRY_SIGNUP: 'open', GANTRY_AUTH_FAILURES_PER_ADDRESS: '3', ...FAST_HASHES }, mailer: mails });
  try {
    const email = address('throttled');
    await send('POST', '/console/sign-up', { email, password: 'correct horse battery' }, undefined, t);
    await deliver(t);
    session(await send('POST', '/console/confirm', { token: linkToken(mails.to(email)[0]!.text, 'confirm'), password: 'correct horse battery' }, undefined, t));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send('POST', '/console/session', { email, password: `wrong ${i} password` }, undefined, t)).status);
    assert.deepEqual(statuses, [401, 401, 401, 429], 'the failure past the limit is itself refused');
    const right = await send('POST', '/console/session', { email, password: 'correct horse battery' }, undefined, t);
    assert.equal(right.status, 429, 'a correct guess during a lockout is not confirmed');
    t.clock.advance(t.config.authThrottle.windowMs);
    session(await send('POST', '/console/session', { email, password: 'correct horse battery' }, undefined, t));
  } finally {
    await t.close();
  }
});

test('a message the mail server refuses is retried with backoff; one refused every time stays a failed job the operator sees', async () => {
  const p = await person();
  mail.failing = 1;
  await send('POST', '/console/password/forgot', { email: p.email });
  const before = mail.to(p.email).length;
  await deliver();
  assert.equal(mail.to(p.email).length, before, 'refused once');
  h.clock.advance(10_000);
  await deliver();
  assert.equal(mail.to(p.email).length, before + 1, 'sent at the retry');
  linkToken(mail.to(p.email).at(-1)!.text, 'reset');

  mail.failing = 1000;
  await send('POST', '/console/password/forgot', { email: p.email });
  for (let i = 0; i < 8; i++) {
    await deliver();
    h.clock.advance(3_600_000);
  }
  mail.failing = 0;
  const failed = await as(h.app, h.creds.adminToken).get('/admin/v1/jobs', { state: 'failed', name: 'accounts.mail' });
  assert.equal(failed.status, 200);
  assert.equal(failed.body.jobs.length, 1);
  assert.equal(failed.body.jobs[0].attempts, 8);
  assert.match(failed.body.jobs[0].lastError, /451 4\.3\.0/);
  assert.ok(!JSON.stringify(failed.body.jobs[0].payload).includes('token'), 'the job holds the link\'s id, never a token');
});

test('without an SMTP server the message is written to the server\'s log, whole, and the link in it works; no password is ever logged', async () => {
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const t = await buildTestApp({ env: { GANTRY_SIGNUP: 'open', ...FAST_HASHES }, logStream });
  try {
    const email = address('local');
    await send('POST', '/console/sign-up', { email, password: 'secret sauce 42' }, undefined, t);
    await deliver(t);
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.mail?.to === email);
    assert.ok(entry, 'the message is in the log');
    assert.equal(entry.level, 40, 'at warn: an operator who forgot to configure mail sees it');
    assert.match(entry.msg, /no SMTP server is configured/);
    session(await send('POST', '/console/confirm', { token: linkToken(entry.mail.text, 'confirm'), password: 'secret sauce 42' }, undefined, t));
    await send('POST', '/console/session', { email, password: 'wrong sauce 42' }, undefined, t);
    assert.ok(!lines.some((l) => l.includes('secret sauce') || l.includes('wrong sauce')), 'no password in any log line');
  } finally {
    await t.close();
  }
});

test('a person\'s session calls models through the same admission as a key: refused without balance, then charged, the usage recorded under the session', async () => {
  const p = await person();
  const chat = { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8 };
  const broke = await send('POST', '/openai/v1/chat/completions', chat, p);
  assert.equal(broke.status, 403, JSON.stringify(broke.body));
  assert.match(JSON.stringify(broke.body), /balance/i, 'a new team starts with nothing to spend');
  const top = await as(h.app, h.creds.adminToken).post(`/admin/v1/teams/${p.body.principal.teamId}/topups`, { amount: 100_000, idempotencyKey: `psn-${p.email}` });
  assert.equal(top.status, 200, JSON.stringify(top.body));
  const ok = await send('POST', '/openai/v1/chat/completions', chat, p);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const day = Math.floor(h.clock.nowMs() / 86_400_000) * 86_400;
  const bills = await send('GET', `/openapi/v1/billing/apikey/bill/list?cycleType=Day&category=llm&startTime=${day}&endTime=${day + 86_400}`, undefined, p);
  assert.equal(bills.status, 200, JSON.stringify(bills.body));
  assert.deepEqual(bills.body.bills.map((b: any) => b.ownerID), [p.body.principal.keyId], 'the usage is the session\'s, as a key\'s is the key\'s');

  // what outlives a call (a terminal, a batch) asks who the session is now, past any cache: gone once it is signed out
  const ref = p.body.principal.keyId;
  assert.equal((await h.services.keys.current(ref)).memberId, p.body.principal.memberId);
  assert.equal((await send('DELETE', '/console/session', undefined, p)).status, 200);
  await assert.rejects(h.services.keys.current(ref), /invalid or has been revoked/);
});

test('two confirm links of one address followed at once make one account: the other is refused, not a 500', async () => {
  const email = address('twice');
  // one password for both: the messages may arrive in either order (the mail jobs run side by side)
  await send('POST', '/console/sign-up', { email, password: 'the same password' });
  await send('POST', '/console/sign-up', { email, password: 'the same password' });
  await deliver();
  const [one, two] = mail.to(email).map((m) => linkToken(m.text, 'confirm'));
  const answers = await Promise.all([
    send('POST', '/console/confirm', { token: one, password: 'the same password' }),
    send('POST', '/console/confirm', { token: two, password: 'the same password' }),
  ]);
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401], JSON.stringify(answers.map((a) => a.body)));
});

test('sign-up and reset requests fill no inbox: at most 5 messages an hour to an address, the answers unchanged', async () => {
  const p = await person();
  const before = mail.to(p.email).length;
  for (let i = 0; i < 4; i++) {
    assert.equal((await send('POST', '/console/password/forgot', { email: p.email })).status, 202);
    assert.equal((await send('POST', '/console/sign-up', { email: p.email, password: 'someone else' })).status, 202);
  }
  await deliver();
  assert.equal(mail.to(p.email).length - before, 4, 'the confirm of the sign-up counted: 1 + 4 in the hour');
  h.clock.advance(3_600_000);
  await send('POST', '/console/password/forgot', { email: p.email });
  await deliver();
  assert.equal(mail.to(p.email).length - before, 5, 'an hour later, one more');
  linkToken(mail.to(p.email).at(-1)!.text, 'reset');
});

test('changing the address: the password again, a link to the new address, then the account and its members have it', async () => {
  const p = await person();
  const next = address('moved');
  assert.equal((await send('POST', '/console/email', { newEmail: next, password: 'not the password' }, p)).status, 401);
  assert.equal((await send('POST', '/console/email', { newEmail: p.email, password: p.password }, p)).status, 400);
  const asked = await send('POST', '/console/email', { newEmail: next, password: p.password }, p);
  assert.deepEqual([asked.status, asked.body], [202, {}]);
  const taken = await person();
  const askedTaken = await send('POST', '/console/email', { newEmail: taken.email, password: p.password }, p);
  assert.deepEqual([askedTaken.status, askedTaken.body], [asked.status, asked.body], 'the same answer for an address with an account');
  await deliver();
  assert.equal(mail.to(taken.email).at(-1)!.subject, 'You already have a Gantry account');
  assert.ok(!mail.to(taken.email).at(-1)!.text.includes('token='));

  const token = linkToken(mail.to(next).at(-1)!.text, 'email');
  assert.equal((await send('POST', '/console/password/reset', { token, password: 'whatever password' })).status, 401, 'bound to its purpose');
  assert.equal((await send('POST', '/console/email/confirm', { token })).status, 200);
  assert.equal((await send('POST', '/console/email/confirm', { token })).status, 401, 'once');
  assert.equal((await send('POST', '/console/session', { email: p.email, password: p.password })).status, 401, 'the old address signs in no more');
  const s = session(await send('POST', '/console/session', { email: next, password: p.password }));
  assert.equal(s.body.person.email, next);
  const members = await send('GET', '/openapi/v1/user/team/members', undefined, s);
  assert.deepEqual(members.body.members.map((m: any) => m.email), [next]);
  assert.ok(!mail.to(p.email).some((m) => /changed/.test(m.subject)), 'the old address is told once the change is made, not before');
  await deliver();
  const notice = mail.to(p.email).at(-1)!;
  assert.equal(notice.subject, 'The e-mail address of your Gantry account was changed');
  assert.ok(notice.text.includes(`${next[0]}•••@example.com`), notice.text);
  assert.ok(!notice.text.includes(next), 'the new address is masked');
  assert.doesNotMatch(notice.text, /token=|#\//, 'no link that signs in, resets or confirms');
});

test('a member made before accounts takes their seat through an invitation: role and keys kept, an Owner\'s seat only by an Owner', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const ownerEmail = address('Operator-Made').replace('operator-made', 'Operator-Made');
  const team = await admin.post('/admin/v1/teams', { name: 'made by the operator', ownerEmail });
  const ownerKey = (await admin.post(`/admin/v1/members/${team.body.ownerMemberId}/keys`, { name: 'k' })).body.apiKey;
  const adminEmail = address('their-admin');
  const adminSeat = (await admin.post(`/admin/v1/teams/${team.body.userId}/members`, { email: adminEmail, role: 'Admin' })).body.memberId;
  const adminKey = (await admin.post(`/admin/v1/members/${adminSeat}/keys`, { name: 'a' })).body.apiKey;

  assert.equal((await as(h.app, adminKey).post('/console/invitations', { email: ownerEmail })).status, 403, 'an Admin does not act on the Owner\'s seat');
  assert.equal((await as(h.app, ownerKey).post('/console/invitations', { email: adminEmail, role: 'Basic' })).status, 409, 'a seat keeps its role');
  const sent = await as(h.app, ownerKey).post('/console/invitations', { email: ownerEmail.toLowerCase() });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.deepEqual([sent.body.memberId, sent.body.role], [team.body.ownerMemberId, 'Owner']);
  await deliver();
  const token = linkToken(mail.to(ownerEmail.toLowerCase()).at(-1)!.text, 'invite');
  const s = session(await send('POST', '/console/invitations/accept', { token, password: 'the owner now' }));
  assert.deepEqual([s.body.principal.memberId, s.body.principal.role], [team.body.ownerMemberId, 'Owner']);
  assert.equal((await as(h.app, ownerKey).get('/openapi/v1/user/keys')).status, 200, 'the seat\'s API keys keep working');
  const members = await send('GET', '/openapi/v1/user/team/members', undefined, s);
  assert.deepEqual(members.body.members.find((m: any) => m.memberId === team.body.ownerMemberId).email, ownerEmail.toLowerCase());
});
