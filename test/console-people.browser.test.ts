// The console's pages for people (issue 43) in Chromium, as a person uses them: one app
// (buildTestApp, listening, GANTRY_SIGNUP=open, mail recorded by the test's mailer and its links
// followed as a person would) and one browser with two contexts, the Owner's at desktop width
// and the invitee's at phone width. Sign-up → the confirm link → signed in; sign-in refused the
// same for a wrong address and a wrong password; an invitation sent, listed, sent again, and one revoked;
// the invitee (with an account of their own) accepts in the second context, switches teams and
// is listed active; the Owner's account page: sessions signed out one by one, the password and
// the address changed, two-factor turned on (secret and recovery codes shown once) and then asked
// at sign-in, by code and by recovery code, and required of the team (a switch to it refused for
// the invitee without it; someone invited afterwards sees only their account's page until they
// set it up); the invitee's forgotten password reset from its link; the Owner made an operator
// account (the operator's link, her password and code) reaching the operator views.
// Every wait is on what the page shows. Screenshots: test-artifacts/console/people-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM, chromiumSkip, shot, shows } from './helpers/browser.ts';
import { buildTestApp } from './helpers/app.ts';
import { linkToken, RecordingMailer } from './helpers/mail.ts';
import { base32Decode, totp } from '../src/lib/totp.ts';
import { until } from './helpers/wait.ts';

const OWNER = 'ada@example.com';
const INVITEE = 'grace@example.com';
const PASSWORD = 'correct horse battery';

/** The page at the end of an e-mailed link: the message's newest link of `purpose` to `to`, opened as a person clicks it. */
async function follow(page: Page, base: string, mail: RecordingMailer, to: string, purpose: 'confirm' | 'reset' | 'invite' | 'email' | 'operator-invite'): Promise<void> {
  const message = mail.to(to).findLast((m) => m.text.includes(`/console/#/${purpose}?token=`));
  assert.ok(message, `a message to ${to}`);
  await page.goto(`${base}/console/#/${purpose}?token=${linkToken(message.text, purpose)}`);
  await shows(page, `${purpose} page`, page.locator('main.login h1'));
}

/** Signs in with an e-mail address and password on the sign-in page (the form people see first). */
async function signInAs(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/console`);
  await shows(page, 'sign-in form', page.getByLabel('E-mail address', { exact: true }));
  await page.getByLabel('E-mail address', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function signOut(page: Page, phone = false): Promise<void> {
  if (phone) await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
}

test('people in the console: sign-up, confirm, sign-in with two-factor, invitations, the team switcher, the account page, a reset', { timeout: 240_000, skip: chromiumSkip }, async () => {
  const mail = new RecordingMailer();
  const h = await buildTestApp({ env: { GANTRY_SIGNUP: 'open', GANTRY_PASSWORD_SCRYPT_LN: '12' }, mailer: mail });
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  try {
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    const deliver = () => h.services.jobs.runDue();
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const ownerContext = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await ownerContext.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));

    // Sign-up: the form, then "check your inbox"; the confirm link asks for the password again.
    await page.goto(`${base}/console`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('E-mail address', { exact: true }).fill(OWNER);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').filter({ hasText: 'Check your inbox' }).waitFor();
    await shot(page, 'people-sign-up');
    await deliver();
    await follow(page, base, mail, OWNER, 'confirm');
    await page.getByRole('heading', { name: 'Confirm your e-mail address' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill('not the password chosen');
    await page.getByRole('button', { name: 'Confirm address' }).click();
    await page.getByRole('alert').filter({ hasText: 'wrong e-mail address or password' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm address' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    await page.getByText(`${OWNER} · Owner`).waitFor();
    await signOut(page);

    // Sign-in: a wrong password and an unknown address are refused in the same words.
    await signInAs(page, base, OWNER, 'a wrong password');
    const refusal = page.getByRole('alert');
    await refusal.filter({ hasText: 'wrong e-mail address or password' }).waitFor();
    const wrongPassword = await refusal.textContent();
    await page.getByLabel('E-mail address', { exact: true }).fill('nobody@example.com');
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/console/session') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    await refusal.filter({ hasText: 'wrong e-mail address or password' }).waitFor();
    assert.equal(await refusal.textContent(), wrongPassword, 'the same answer for an address with no account');
    await shot(page, 'people-sign-in-refused');
    await page.getByLabel('E-mail address', { exact: true }).fill(OWNER);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();

    // Invitations: one sent (listed pending, with its expiry), one sent and revoked.
    await page.getByRole('link', { name: 'Members and budgets' }).click();
    const inviteForm = page.getByRole('form', { name: 'Invite a member' });
    const invitations = page.getByRole('table', { name: 'Invitations' });
    for (const email of [INVITEE, 'not-after-all@example.com']) {
      await inviteForm.getByLabel('E-mail address').fill(email);
      await inviteForm.getByLabel('Role').selectOption('Developer');
      await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByRole('status').filter({ hasText: `Invitation sent to ${email}` }).waitFor();
      await invitations.getByRole('row').filter({ hasText: email }).getByText('pending').waitFor();
    }
    assert.match(await invitations.getByRole('row').filter({ hasText: INVITEE }).textContent() ?? '', /\d{4}-\d\d-\d\d \d\d:\d\d UTC/, 'its expiry');
    await invitations.getByRole('button', { name: 'Revoke the invitation of not-after-all@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await invitations.getByRole('row').filter({ hasText: 'not-after-all@example.com' }).getByText('revoked').waitFor();
    await page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: INVITEE }).getByText('invited').waitFor();
    // sent again: the invitee accepts below from the newest link (the first one no longer works)
    await invitations.getByRole('button', { name: `Send the invitation of ${INVITEE} again` }).click();
    await page.getByRole('status').filter({ hasText: `Invitation sent to ${INVITEE} again` }).waitFor();
    await shot(page, 'people-invitations');

    // The invitee, on a phone, with an account of their own already: the sign-in page fits the
    // screen; the invite link is accepted with that account's password.
    const inviteeContext = await browser.newContext({ viewport: { width: 366, height: 740 } });
    const phone = await inviteeContext.newPage();
    phone.on('pageerror', (e) => pageErrors.push(String(e)));
    const api = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await api('/console/sign-up', { email: INVITEE, password: PASSWORD })).status, 202);
    await deliver();
    const ownTeam = mail.to(INVITEE).find((m) => m.text.includes('#/confirm'));
    assert.ok(ownTeam);
    assert.equal((await api('/console/confirm', { token: linkToken(ownTeam.text, 'confirm'), password: PASSWORD })).status, 200);
    await phone.goto(`${base}/console`);
    await phone.getByLabel('E-mail address', { exact: true }).waitFor();
    assert.deepEqual(await phone.evaluate(() => [document.documentElement.scrollWidth <= innerWidth, innerWidth]), [true, 366], 'the sign-in page does not scroll sideways on a phone');
    await shot(phone, 'people-phone-sign-in');
    await follow(phone, base, mail, INVITEE, 'invite');
    await phone.getByRole('heading', { name: 'Accept the invitation' }).waitFor();
    await phone.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await phone.getByRole('button', { name: 'Accept invitation' }).click();
    await phone.getByRole('button', { name: 'Menu' }).waitFor();
    assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true);
    // two teams: the switcher names both, and choosing one opens a session there
    await phone.getByRole('button', { name: 'Menu' }).click();
    const team = phone.getByRole('combobox', { name: 'Team' });
    await team.waitFor();
    assert.equal(await team.getByRole('option').count(), 2);
    const inviting = await team.inputValue();
    const other = await team.getByRole('option').evaluateAll((os, v) => (os as HTMLOptionElement[]).map((o) => o.value).find((x) => x !== v), inviting);
    assert.ok(other);
    await team.selectOption(other);
    await phone.getByText(`${INVITEE} · Owner`).waitFor({ state: 'attached' }); // in the menu, closed once the team is chosen
    await phone.getByRole('heading', { name: 'Overview' }).waitFor();
    await shot(phone, 'people-phone-team-switched');

    // The Owner sees the invitee active, the invitation accepted.
    await page.reload();
    await page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: INVITEE }).getByText('active').waitFor();
    await invitations.getByRole('row').filter({ hasText: INVITEE }).getByText('accepted').waitFor();

    // The account page: another session signed out from the list.
    assert.equal((await fetch(`${base}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'the-other-browser' }, body: JSON.stringify({ email: OWNER, password: PASSWORD }) })).status, 200);
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    const sessions = page.getByRole('table', { name: 'Sessions' });
    const otherSession = sessions.getByRole('row').filter({ hasText: 'the-other-browser' });
    await otherSession.getByRole('button', { name: /^Sign out the session/ }).click();
    await otherSession.waitFor({ state: 'detached' });
    await sessions.getByText('(this one)').waitFor();

    // The password changed (a wrong current one refused, the session kept).
    const passwordForm = page.getByRole('form', { name: 'Change password' });
    await passwordForm.getByLabel('Current password').fill('not it at all');
    await passwordForm.getByLabel(/^New password/).fill('a new password for ada');
    await passwordForm.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'wrong e-mail address or password' }).waitFor();
    await passwordForm.getByLabel('Current password').fill(PASSWORD);
    await passwordForm.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    const newPassword = 'a new password for ada';

    // Two-factor: the secret and the link shown, confirmed with a code; the recovery codes shown once.
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const uri = await page.getByRole('link', { name: /^otpauth:/ }).getAttribute('href');
    const secret = new URL(uri!).searchParams.get('secret')!;
    await page.getByText(secret, { exact: true }).waitFor();
    const code = (offsetMs = 0) => totp(base32Decode(secret)!, h.clock.nowMs() + offsetMs);
    await page.getByLabel('Code from the app').fill(code());
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    const recovery = (await codes.allTextContents()).map((c) => c.trim());
    assert.ok(recovery.length >= 8, `recovery codes: ${recovery.join(' ')}`);
    await page.getByText(/recovery codes left/).waitFor();
    await shot(page, 'people-two-factor');
    // …and required of the team's people
    await page.getByRole('button', { name: 'Require two-factor sign-in in this team' }).click();
    await page.getByRole('status').filter({ hasText: 'Required: a member without it' }).waitFor();

    // The address changed: a link to the new one, followed.
    const emailForm = page.getByRole('form', { name: 'Change e-mail address' });
    await emailForm.getByLabel('New e-mail address').fill('ada.lovelace@example.com');
    await emailForm.getByLabel('Password').fill(newPassword);
    await emailForm.getByRole('button', { name: 'Change address' }).click();
    await page.getByRole('status').filter({ hasText: 'A link was sent to ada.lovelace@example.com' }).waitFor();
    await deliver();
    await follow(page, base, mail, 'ada.lovelace@example.com', 'email');
    await page.getByRole('button', { name: 'Confirm the new address' }).click();
    await page.getByRole('status').filter({ hasText: 'Your address is changed' }).waitFor();
    await page.goto(`${base}/console#/profile`);
    await page.getByText('ada.lovelace@example.com · Owner').waitFor();
    await signOut(page);

    // Sign-in asks for the second factor after the password: the app's code, then a recovery code.
    h.clock.advance(30_000); // a code's step is accepted once: the next step's code
    await signInAs(page, base, 'ada.lovelace@example.com', newPassword);
    await page.getByLabel(/^Authentication code/).fill(code());
    await shot(page, 'people-sign-in-code');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('ada.lovelace@example.com · Owner').waitFor();
    await signOut(page);
    await signInAs(page, base, 'ada.lovelace@example.com', newPassword);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recovery[0]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('ada.lovelace@example.com · Owner').waitFor();

    // Ada made an operator account by the operator: the link accepted with her password and
    // code, the operator views offered beside her team's, reached without the operator token.
    const granted = await fetch(`${base}/admin/v1/operators`, { method: 'POST', headers: { authorization: `Bearer ${h.creds.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada.lovelace@example.com' }) });
    assert.equal(granted.status, 200);
    await deliver();
    await follow(page, base, mail, 'ada.lovelace@example.com', 'operator-invite');
    await page.getByRole('heading', { name: 'Become an operator' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(newPassword);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    h.clock.advance(30_000);
    await page.getByLabel(/^Authentication code/).fill(code());
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Operator' }).click();
    await page.getByRole('table', { name: 'Tenants' }).getByRole('row').filter({ hasText: OWNER }).first().waitFor(); // her team, named at sign-up
    await shot(page, 'people-operator-account');

    // The invitee forgot their password: the reset link from the message, then signed in with the new one.
    await signOut(phone, true);
    await phone.getByRole('link', { name: 'Forgot your password?' }).click();
    await phone.getByLabel('E-mail address', { exact: true }).fill(INVITEE);
    await phone.getByRole('button', { name: 'Send a reset link' }).click();
    await phone.getByRole('status').filter({ hasText: `If ${INVITEE} has an account` }).waitFor();
    await deliver();
    await follow(phone, base, mail, INVITEE, 'reset');
    await phone.getByLabel(/^New password/).fill('grace chose anew');
    await phone.getByRole('button', { name: 'Set the password' }).click();
    await phone.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    await signInAs(phone, base, INVITEE, 'grace chose anew');
    await phone.getByRole('button', { name: 'Menu' }).waitFor();
    await shot(phone, 'people-phone-signed-in');
    // signed in to their own team: Ada's requires two-factor sign-in, which Grace has not set up,
    // and switching to it is refused in the API's words, the switcher left on Grace's team
    await phone.getByRole('button', { name: 'Menu' }).click();
    const switcher = phone.getByRole('combobox', { name: 'Team' });
    assert.equal(await switcher.inputValue(), other);
    await switcher.selectOption(inviting);
    await phone.getByRole('alert').filter({ hasText: 'requires two-factor sign-in' }).waitFor();
    assert.equal(await switcher.inputValue(), other);
    await shot(phone, 'people-phone-two-factor-required');

    // Someone invited to Ada's team now, with no account: accepted, their session may act only
    // once two-factor sign-in is on, so only their account's page is offered until they set it up.
    await page.goto(`${base}/console#/members`);
    await inviteForm.getByLabel('E-mail address').fill('linus@example.com');
    await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'Invitation sent to linus@example.com' }).waitFor();
    await deliver();
    await signOut(phone); // the menu is open still: the refused switch left it so
    await follow(phone, base, mail, 'linus@example.com', 'invite');
    await phone.getByLabel('Password', { exact: true }).fill('linus picks one');
    await phone.getByRole('button', { name: 'Accept invitation' }).click();
    await phone.getByRole('alert').filter({ hasText: 'Your team requires two-factor sign-in' }).waitFor();
    await phone.getByRole('button', { name: 'Menu' }).click();
    const nav = phone.getByRole('navigation', { name: 'Console' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Your account']);
    await phone.getByRole('button', { name: 'Menu' }).click();
    await phone.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const linusUri = await phone.getByRole('link', { name: /^otpauth:/ }).getAttribute('href');
    await phone.getByLabel('Code from the app').fill(totp(base32Decode(new URL(linusUri!).searchParams.get('secret')!)!, h.clock.nowMs()));
    await phone.getByRole('button', { name: 'Turn on' }).click();
    await phone.getByRole('list', { name: 'Recovery codes' }).waitFor();
    await until('the pages of the team offered', async () => (await phone.getByRole('alert').filter({ hasText: 'Your team requires' }).count()) === 0);
    await phone.getByRole('list', { name: 'Recovery codes' }).waitFor(); // still shown: the page stays
    await phone.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Overview' }).waitFor();
    await shot(phone, 'people-phone-two-factor-set-up');
    assert.deepEqual(pageErrors, []);
  } catch (e) {
    if (browser) for (const c of browser.contexts()) for (const p of c.pages()) await shot(p, `people-failure-${browser.contexts().indexOf(c)}`).catch(() => {});
    throw e;
  } finally {
    await browser?.close();
    await h.close();
  }
});
