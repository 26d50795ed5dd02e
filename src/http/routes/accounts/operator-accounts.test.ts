// Operator accounts through HTTP: the operator (token) makes an address an operator account by
// a link; the person follows it (a new account, or their own with its password and second
// factor); the operator views (/admin/v1) open to their console session only once two-factor
// sign-in is on, are refused to a person who is not an operator, and close at once when the
// grant is revoked; a link works once, even followed twice at once. What an operator person does is logged under their id, the token's under
// `operator-token`. One app, its log captured.
import { test, before, after } from 'node:test';
import { PassThrough } from 'node:stream';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { linkToken, RecordingMailer } from '../../../../test/helpers/mail.ts';
import { personSender, type PersonSession } from '../../../../test/helpers/person-session.ts';
import { base32Decode, totp } from '../../../lib/totp.ts';

let h: TestApp;
const mail = new RecordingMailer();
const logLines: any[] = [];
before(async () => {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
  });
  h = await buildTestApp({ env: { GANTRY_SIGNUP: 'open', GANTRY_PASSWORD_SCRYPT_LN: '12' }, mailer: mail, logStream });
});
after(() => h.close());

type Session = PersonSession;
const send = personSender(() => h);

const PASSWORD = 'correct horse battery';
const operator = () => as(h.app, h.creds.adminToken);
let seq = 0;
const address = (what: string) => `${what}-${++seq}@example.com`;

/** The operator link last mailed to `email`. */
async function operatorLink(email: string): Promise<string> {
  await h.services.jobs.runDue();
  return linkToken(mail.to(email).at(-1)!.text, 'operator-invite');
}

/** Turns two-factor sign-in on in a session; the secret, as the app keeps it. */
async function enrol(s: Session): Promise<Buffer> {
  const start = await send('POST', '/console/two-factor', undefined, s);
  assert.equal(start.status, 200, JSON.stringify(start.body));
  const secret = base32Decode(start.body.secret)!;
  assert.equal((await send('POST', '/console/two-factor/confirm', { code: totp(secret, h.clock.nowMs()) }, s)).status, 200);
  return secret;
}

test('the operator makes an address an operator account: the link makes it, two-factor opens the operator views, a sign-in asks for the code; what it does is logged under the person', async () => {
  const email = address('ops');
  const granted = await operator().post('/admin/v1/operators', { email: ` ${email.toUpperCase()} ` });
  assert.equal(granted.status, 200, JSON.stringify(granted.body));
  assert.deepEqual([granted.body.email, granted.body.status, granted.body.grantedBy], [email, 'invited', 'operator-token']);
  const token = await operatorLink(email);
  assert.ok(mail.to(email).at(-1)!.text.includes(`${h.config.serverless.publicBaseUrl}/console/#/operator-invite?token=`));
  assert.equal((await send('POST', '/console/invitations/accept', { token, password: PASSWORD })).status, 401, 'an operator link is not a team invitation');

  const accepted = await send('POST', '/console/operator-invitation/accept', { token, password: PASSWORD });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  const s = accepted.session!;
  assert.equal(s.body.kind, 'person');
  assert.equal(s.body.principal, undefined, 'an operator account without a seat acts in no team');
  assert.deepEqual(s.body.operator, { grantId: granted.body.grantId, twoFactorRequired: true });
  assert.equal((await send('POST', '/console/operator-invitation/accept', { token, password: PASSWORD })).status, 401, 'single use');

  // two-factor first: the operator views are closed until it is on
  const closed = await send('GET', '/admin/v1/teams', undefined, s);
  assert.equal(closed.status, 403, JSON.stringify(closed.body));
  assert.match(closed.body.message, /two-factor/);
  assert.equal((await send('GET', '/openapi/v1/user/keys', undefined, s)).status, 403, 'no team route either: it holds no seat');
  const secret = await enrol(s);
  assert.equal((await send('GET', '/console/session', undefined, s)).body.operator.twoFactorRequired, false);
  assert.equal((await send('GET', '/admin/v1/teams', undefined, s)).status, 200);
  assert.equal((await send('POST', '/admin/v1/teams', { name: 'by a person', ownerEmail: address('owner') }, { ...s, csrf: 'wrong' })).status, 403, 'a change carries the session\'s CSRF token');
  const made = await send('POST', '/admin/v1/teams', { name: 'by a person', ownerEmail: address('owner') }, s);
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const listed = await operator().get('/admin/v1/operators');
  assert.deepEqual(listed.body.operators.map((o: any) => [o.grantId, o.status, o.personId, o.twoFactor]), [[granted.body.grantId, 'active', s.body.person.personId, true]]);

  // the audit: the person's calls are logged under their id, the token's under the token
  const byToken = await operator().get('/admin/v1/teams');
  const logged = (id: string) => logLines.filter((l) => l.reqId === id && l.msg === 'request completed').map((l) => l.operator);
  assert.deepEqual(logged(made.id), [s.body.person.personId]);
  assert.deepEqual(logged(byToken.headers['x-request-id'] as string), ['operator-token']);

  // signing in again: the password, then the code, and the operator views with it
  assert.equal((await send('POST', '/console/session', { email, password: PASSWORD })).status, 401);
  h.clock.advance(30_000);
  const again = await send('POST', '/console/session', { email, password: PASSWORD, totp: totp(secret, h.clock.nowMs()) });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal((await send('GET', '/admin/v1/teams', undefined, again.session)).status, 200);
  assert.equal((await operator().post('/admin/v1/operators', { email })).status, 409, 'an operator already');
});

test('a person who is not an operator is refused the operator views; revoking a grant ends its person\'s sessions at once, and an invited one\'s link', async () => {
  const email = address('member');
  await send('POST', '/console/sign-up', { email, password: PASSWORD });
  await h.services.jobs.runDue();
  const member = (await send('POST', '/console/confirm', { token: linkToken(mail.to(email).at(-1)!.text, 'confirm'), password: PASSWORD })).session!;
  const secret = await enrol(member);
  assert.equal((await send('GET', '/admin/v1/teams', undefined, member)).status, 401, 'two-factor on, but not an operator');

  // the same person made an operator: their own account, its password and code; the session before ends (a privilege change)
  const grant = (await operator().post('/admin/v1/operators', { email })).body;
  const token = await operatorLink(email);
  assert.equal((await send('POST', '/console/operator-invitation/accept', { token, password: 'not the password' })).status, 401);
  assert.equal((await send('POST', '/console/operator-invitation/accept', { token, password: PASSWORD })).status, 401, 'their second factor too');
  h.clock.advance(30_000);
  const accepted = await send('POST', '/console/operator-invitation/accept', { token, password: PASSWORD, totp: totp(secret, h.clock.nowMs()) });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  const ops = accepted.session!;
  assert.equal((await send('GET', '/console/session', undefined, member)).status, 401, 'the session before the grant ended');
  assert.equal(ops.body.principal.role, 'Owner', 'still acting in their own team');
  assert.equal((await send('GET', '/admin/v1/teams', undefined, ops)).status, 200);

  assert.equal((await operator().delete(`/admin/v1/operators/${grant.grantId}`)).status, 200);
  assert.equal((await send('GET', '/admin/v1/teams', undefined, ops)).status, 401, 'revoked: the session ended at once');
  assert.equal((await send('GET', '/console/session', undefined, ops)).status, 401);
  assert.equal((await operator().delete(`/admin/v1/operators/${grant.grantId}`)).status, 404);
  h.clock.advance(30_000);
  const back = (await send('POST', '/console/session', { email, password: PASSWORD, totp: totp(secret, h.clock.nowMs()) })).session!;
  assert.equal(back.body.operator, undefined);
  assert.equal((await send('GET', '/admin/v1/teams', undefined, back)).status, 401, 'a member again, not an operator');

  // an invitation revoked, or sent again, refuses the link sent before
  const other = address('invited');
  const invited = (await operator().post('/admin/v1/operators', { email: other })).body;
  const first = await operatorLink(other);
  assert.equal((await operator().post('/admin/v1/operators', { email: other })).body.grantId, invited.grantId, 'sent again: the same grant');
  const second = await operatorLink(other);
  assert.equal((await send('POST', '/console/operator-invitation/accept', { token: first, password: PASSWORD })).status, 401, 'the link before the new one');
  assert.equal((await operator().delete(`/admin/v1/operators/${invited.grantId}`)).status, 200);
  assert.equal((await send('POST', '/console/operator-invitation/accept', { token: second, password: PASSWORD })).status, 401, 'revoked');
  assert.ok(!(await operator().get('/admin/v1/operators')).body.operators.some((o: any) => o.email === other));

  // one link followed twice at once: one account, one grant, the other use refused (not a 500)
  const twice = address('twice');
  await operator().post('/admin/v1/operators', { email: twice });
  const once = await operatorLink(twice);
  const both = await Promise.all([1, 2].map(() => send('POST', '/console/operator-invitation/accept', { token: once, password: PASSWORD })));
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 401]);
  assert.equal((await operator().get('/admin/v1/operators')).body.operators.filter((o: any) => o.email === twice && o.status === 'active').length, 1);
});
