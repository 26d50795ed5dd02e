// Two-factor sign-in through HTTP: enrolling an authenticator app (the codes computed here
// from the secret the route showed, as the app would, at the test's clock), signing in with a
// code (accepted once, within a step of now; two at once: one wins), recovery codes (once
// each), accepting an invitation with an account that has it on, and turning it off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { linkToken, RecordingMailer } from '../../../../test/helpers/mail.ts';
import { personSender } from '../../../../test/helpers/person-session.ts';
import { base32Decode, totp } from '../../../lib/totp.ts';

let h: TestApp;
const mail = new RecordingMailer();
before(async () => {
  h = await buildTestApp({ env: { GANTRY_SIGNUP: 'open', GANTRY_PASSWORD_SCRYPT_LN: '12' }, mailer: mail });
});
after(() => h.close());

const send = personSender(() => h);

let seq = 0;
const PASSWORD = 'correct horse battery';

/** A person signed in, with two-factor sign-in on: their secret (as the app keeps it) and recovery codes. */
async function enrolled() {
  const email = `tf-${++seq}@example.com`;
  await send('POST', '/console/sign-up', { email, password: PASSWORD });
  await h.services.jobs.runDue();
  const s = (await send('POST', '/console/confirm', { token: linkToken(mail.to(email).at(-1)!.text, 'confirm'), password: PASSWORD })).session!;
  const other = (await send('POST', '/console/session', { email, password: PASSWORD })).session!;
  const start = await send('POST', '/console/two-factor', undefined, s);
  assert.equal(start.status, 200, JSON.stringify(start.body));
  assert.match(start.body.otpauthUri, new RegExp(`^otpauth://totp/Gantry:${encodeURIComponent(email)}\\?secret=${start.body.secret}&`));
  const secret = base32Decode(start.body.secret)!;
  assert.equal((await send('POST', '/console/two-factor/confirm', { code: totp(secret, h.clock.nowMs() + 90_000) }, s)).status, 400, 'a code of another time');
  const confirmed = await send('POST', '/console/two-factor/confirm', { code: totp(secret, h.clock.nowMs()) }, s);
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return { email, s, other, secret, recoveryCodes: confirmed.body.recoveryCodes as string[] };
}

test('enrolling an app: a confirmed code turns two-factor on, gives 10 recovery codes once and signs the other sessions out', async () => {
  const p = await enrolled();
  assert.equal(p.recoveryCodes.length, 10);
  assert.equal(new Set(p.recoveryCodes).size, 10);
  for (const c of p.recoveryCodes) assert.match(c, /^[a-z2-7]{5}-[a-z2-7]{5}$/);
  const view = await send('GET', '/console/session', undefined, p.s);
  assert.deepEqual(view.body.person.twoFactor, { enabled: true, recoveryCodesLeft: 10 });
  assert.equal((await send('GET', '/console/session', undefined, p.other)).status, 401, 'the session without a second factor is signed out');
  assert.equal((await send('POST', '/console/two-factor', undefined, p.s)).status, 409, 'on already');
});

test('signing in asks for a code; a code is accepted once, within a step of now', async () => {
  const p = await enrolled();
  const bare = await send('POST', '/console/session', { email: p.email, password: PASSWORD });
  assert.equal(bare.status, 401);
  assert.equal(bare.body.metadata.field, 'totp');
  assert.equal(bare.session, undefined);
  const wrongPassword = await send('POST', '/console/session', { email: p.email, password: 'wrong password!', totp: totp(p.secret, h.clock.nowMs()) });
  assert.equal(wrongPassword.status, 401);
  assert.notEqual(wrongPassword.body.metadata.field, 'totp', 'the code is asked for only after the right password');

  assert.equal((await send('POST', '/console/session', { email: p.email, password: PASSWORD, totp: totp(p.secret, h.clock.nowMs()) })).status, 401, 'the enrolment\'s code was used');
  h.clock.advance(30_000);
  const code = totp(p.secret, h.clock.nowMs());
  const [a, b] = await Promise.all([
    send('POST', '/console/session', { email: p.email, password: PASSWORD, totp: code }),
    send('POST', '/console/session', { email: p.email, password: PASSWORD, totp: code }),
  ]);
  assert.deepEqual([a.status, b.status].sort(), [200, 401], 'one code, one sign-in');
  h.clock.advance(30_000);
  assert.equal((await send('POST', '/console/session', { email: p.email, password: PASSWORD, totp: totp(p.secret, h.clock.nowMs() - 30_000) })).status, 401, 'the previous step\'s code was used already');
  h.clock.advance(30_000);
  assert.equal((await send('POST', '/console/session', { email: p.email, password: PASSWORD, totp: totp(p.secret, h.clock.nowMs() - 60_000) })).status, 401, 'two steps old');
  assert.equal((await send('POST', '/console/session', { email: p.email, password: PASSWORD, totp: totp(p.secret, h.clock.nowMs() - 30_000) })).status, 200, 'one step behind: a slow typist');
});

test('a recovery code signs in once, in place of a code', async () => {
  const p = await enrolled();
  const code = p.recoveryCodes[3]!;
  const ok = await send('POST', '/console/session', { email: p.email, password: PASSWORD, recoveryCode: code.toUpperCase().replace('-', ' ') });
  assert.equal(ok.status, 200, 'typed in another case, with a space');
  assert.equal(ok.body.person.twoFactor.recoveryCodesLeft, 9);
  assert.equal((await send('POST', '/console/session', { email: p.email, password: PASSWORD, recoveryCode: code })).status, 401, 'used');
  assert.equal((await send('POST', '/console/session', { email: p.email, password: PASSWORD, recoveryCode: 'aaaaa-aaaaa' })).status, 401);
});

test('accepting an invitation with an account that has two-factor on takes its code too', async () => {
  const p = await enrolled();
  const ownerEmail = `owner-${++seq}@example.com`;
  await send('POST', '/console/sign-up', { email: ownerEmail, password: PASSWORD });
  await h.services.jobs.runDue();
  const owner = (await send('POST', '/console/confirm', { token: linkToken(mail.to(ownerEmail).at(-1)!.text, 'confirm'), password: PASSWORD })).session!;
  assert.equal((await send('POST', '/console/invitations', { email: p.email, role: 'Basic' }, owner)).status, 200);
  await h.services.jobs.runDue();
  const token = linkToken(mail.to(p.email).at(-1)!.text, 'invite');
  const bare = await send('POST', '/console/invitations/accept', { token, password: PASSWORD });
  assert.equal(bare.status, 401);
  assert.equal(bare.body.metadata.field, 'totp');
  h.clock.advance(30_000);
  const ok = await send('POST', '/console/invitations/accept', { token, password: PASSWORD, totp: totp(p.secret, h.clock.nowMs()) });
  assert.equal(ok.status, 200, 'the link was not spent by the refused attempt');
  assert.equal(ok.body.principal.teamId, owner.body.principal.teamId);
});

test('turning two-factor off takes the password and a code; then the password alone signs in', async () => {
  const p = await enrolled();
  h.clock.advance(30_000);
  assert.equal((await send('POST', '/console/two-factor/disable', { password: PASSWORD }, p.s)).status, 401);
  assert.equal((await send('POST', '/console/two-factor/disable', { password: 'wrong password!', totp: totp(p.secret, h.clock.nowMs()) }, p.s)).status, 401);
  assert.equal((await send('POST', '/console/two-factor/disable', { password: PASSWORD, totp: totp(p.secret, h.clock.nowMs()) }, p.s)).status, 200);
  const s = await send('POST', '/console/session', { email: p.email, password: PASSWORD });
  assert.equal(s.status, 200);
  assert.deepEqual(s.body.person.twoFactor, { enabled: false, recoveryCodesLeft: 0 });
});

test('an Owner may require two-factor of the team: a person without it is signed in only to turn it on, then acts', async () => {
  const ownerEmail = `req-owner-${++seq}@example.com`;
  await send('POST', '/console/sign-up', { email: ownerEmail, password: PASSWORD });
  await h.services.jobs.runDue();
  const bareOwner = (await send('POST', '/console/confirm', { token: linkToken(mail.to(ownerEmail).at(-1)!.text, 'confirm'), password: PASSWORD })).session!;
  assert.equal((await send('PUT', '/console/team/two-factor', { required: true }, bareOwner)).status, 409, 'not without it oneself');

  const owner = await enrolled(); // an Owner of their own team, with two-factor on
  const member = `req-member-${++seq}@example.com`;
  await send('POST', '/console/invitations', { email: member, role: 'Admin' }, owner.s);
  await h.services.jobs.runDue();
  const m = (await send('POST', '/console/invitations/accept', { token: linkToken(mail.to(member).at(-1)!.text, 'invite'), password: PASSWORD })).session!;
  assert.equal((await send('PUT', '/console/team/two-factor', { required: true }, m)).status, 403, 'an Admin may not');
  assert.equal((await send('PUT', '/console/team/two-factor', { required: true }, owner.s)).status, 200);

  const refused = await send('GET', '/openapi/v1/user/team/members', undefined, m);
  assert.equal(refused.status, 403);
  assert.match(refused.body.message, /requires two-factor/);
  const signedIn = (await send('POST', '/console/session', { email: member, password: PASSWORD })).session!;
  assert.equal(signedIn.body.principal, undefined, 'signed in, acting as no one yet');
  assert.equal(signedIn.body.person.teams[0].requiresTwoFactor, true);
  assert.equal((await send('GET', '/openapi/v1/user/team/members', undefined, owner.s)).status, 200, 'the Owner, with it on, acts');

  const secret = base32Decode((await send('POST', '/console/two-factor', undefined, signedIn)).body.secret)!;
  assert.equal((await send('POST', '/console/two-factor/confirm', { code: totp(secret, h.clock.nowMs()) }, signedIn)).status, 200);
  assert.equal((await send('GET', '/openapi/v1/user/team/members', undefined, signedIn)).status, 200, 'with two-factor on, the same session acts');
});
