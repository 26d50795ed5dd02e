// People over real SMTP, end to end: Gantry's nodemailer adapter sends to an SMTP server run
// here (smtp-server, on 127.0.0.1, with a login), and the test reads the confirm and invite
// links out of the messages the server received and follows them through HTTP as a person
// would: sign up → mail → confirm → sign in → invite another address → mail → accept → the
// member listed with the real e-mail and status active (invited before, disabled after).
// A message the server refuses once is sent again by the job's retry.
// Fast tier: the SMTP server is a library in this process (no program is started), and the
// whole file takes a few seconds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { linkToken } from './helpers/mail.ts';
import { until } from './helpers/wait.ts';

interface Received { from: string; to: string[]; raw: string; user: string | undefined }

const received: Received[] = [];
let refuseNext = 0;
const server = new SMTPServer({
  allowInsecureAuth: true, // plain SMTP on the loopback: GANTRY_SMTP_TLS=off
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth(auth, _session, cb) {
    if (auth.username === 'gantry' && auth.password === 'p@ss word') return cb(null, { user: 'gantry' });
    return cb(new Error('535 wrong login'));
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      if (refuseNext > 0) {
        refuseNext--;
        return cb(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
      }
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'), user: session.user as string | undefined,
      });
      cb();
    });
  },
});

let h: TestApp;
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  h = await buildTestApp({
    env: {
      GANTRY_SIGNUP: 'open', GANTRY_PASSWORD_SCRYPT_LN: '12',
      GANTRY_SMTP_URL: `smtp://gantry:${encodeURIComponent('p@ss word')}@127.0.0.1:${port}`, GANTRY_SMTP_TLS: 'off',
      GANTRY_MAIL_FROM: 'Gantry <no-reply@gantry.test>',
    },
  });
});
after(async () => {
  await h.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A message's text body as a reader sees it: quoted-printable soft breaks joined, =XX decoded. */
function bodyOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(raw)) return body;
  return body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Run the due jobs (mail among them) until a message to `to` has arrived; its body. */
async function mailTo(to: string): Promise<string> {
  const seen = received.filter((m) => m.to.includes(to)).length;
  await until(`a message to ${to}`, async () => {
    await h.services.jobs.runDue();
    return received.filter((m) => m.to.includes(to)).length > seen;
  });
  const m = received.filter((x) => x.to.includes(to)).at(-1)!;
  assert.equal(m.user, 'gantry', 'Gantry logged in with GANTRY_SMTP_URL\'s user');
  assert.equal(m.from, 'no-reply@gantry.test');
  assert.match(m.raw, /^From: Gantry <no-reply@gantry\.test>$/m);
  return bodyOf(m.raw);
}

async function post(url: string, body: unknown, s?: { cookie: string; csrf: string }) {
  const res = await h.app.inject({
    method: 'POST', url, payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(s ? { cookie: s.cookie, 'x-csrf-token': s.csrf } : {}) },
  });
  const m = /^gantry_session=([A-Za-z0-9_-]+);/.exec(String(res.headers['set-cookie'] ?? ''));
  const json = res.body ? JSON.parse(res.body) : undefined;
  return { status: res.statusCode, body: json, session: m ? { cookie: `gantry_session=${m[1]}`, csrf: json.csrfToken as string } : undefined };
}

async function get(url: string, s: { cookie: string; csrf: string }) {
  const res = await h.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

test('sign up, confirm, sign in, invite and accept, every link read from the mail the SMTP server received', async () => {
  const owner = 'ada@example.com';
  assert.equal((await post('/console/sign-up', { email: owner, password: 'analytical engine' })).status, 202);
  const confirmMail = await mailTo(owner);
  const confirmed = await post('/console/confirm', { token: linkToken(confirmMail, 'confirm'), password: 'analytical engine' });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));

  const signedIn = await post('/console/session', { email: owner, password: 'analytical engine' });
  assert.equal(signedIn.status, 200);
  const s = signedIn.session!;
  assert.equal(signedIn.body.principal.role, 'Owner');

  const invitee = 'grace@example.com';
  refuseNext = 1; // the server refuses the invitation's first attempt: the job sends it again
  const inv = await post('/console/invitations', { email: invitee, role: 'Developer' }, s);
  assert.equal(inv.status, 200, JSON.stringify(inv.body));
  await h.services.jobs.runDue();
  assert.equal(refuseNext, 0, 'the first attempt reached the server and was refused');
  assert.ok(!received.some((m) => m.to.includes(invitee)));
  let members = await get('/openapi/v1/user/team/members', s);
  assert.deepEqual(members.body.members.map((m: any) => [m.email, m.status]).sort(), [[owner, 'active'], [invitee, 'invited']]);

  h.clock.advance(10_000); // the retry's backoff
  const inviteMail = await mailTo(invitee);
  assert.match(inviteMail, /as Developer/);
  const accepted = await post('/console/invitations/accept', { token: linkToken(inviteMail, 'invite'), password: 'compiler first' });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal(accepted.body.principal.role, 'Developer');

  members = await get('/openapi/v1/user/team/members', s);
  assert.deepEqual(members.body.members.map((m: any) => [m.email, m.role, m.status]).sort(), [[owner, 'Owner', 'active'], [invitee, 'Developer', 'active']]);
  const graceId = members.body.members.find((m: any) => m.email === invitee).memberId;
  assert.equal((await post(`/openapi/v1/user/team/members/${graceId}/disable`, {}, s)).status, 200);
  members = await get('/openapi/v1/user/team/members', s);
  assert.equal(members.body.members.find((m: any) => m.email === invitee).status, 'disabled');
  assert.equal((await post('/console/session', { email: invitee, password: 'compiler first' })).status, 401, 'no active seat: no sign-in');
});
