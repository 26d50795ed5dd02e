// @ts-check
// Your account (a person's session, issue 43): the e-mail address (changed once the link sent
// to the new one is followed), the password (the other sessions are signed out), the sessions
// with a sign-out for each, and two-factor sign-in (the secret and the recovery codes shown
// once, at enrolment; turned off with the password and a code).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, get, loadSession, openWith, postAsking, principal, put, session, signOut } from '../api.js';
import { CopyButton, ErrorBox, fields, Loaded, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

function EmailSection() {
  const act = useAction();
  const [sent, setSent] = useState('');
  const person = session.value?.person;
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    void act.run(async () => { await postAsking('/console/email', { newEmail: f.newEmail, password: f.password }); setSent(f.newEmail ?? ''); form.reset(); });
  };
  return html`<section aria-labelledby="p-email"><h2 id="p-email">E-mail address</h2>
    <p>Signed in as <strong>${person?.email}</strong>.</p>
    <form class="grid" onSubmit=${submit} aria-label="Change e-mail address">
      <label>New e-mail address<input name="newEmail" type="email" autocomplete="email" required /></label>
      <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
      <div class="buttons"><button type="submit" disabled=${act.busy}>Change address</button></div>
    </form>
    ${sent && html`<p role="status">A link was sent to ${sent}: the address changes when it is followed.</p>`}
    <${ErrorBox} error=${act.error} /></section>`;
}

function PasswordSection() {
  const act = useAction();
  const [done, setDone] = useState(false);
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    setDone(false);
    void act.run(async () => { await openWith('/console/password', { currentPassword: f.currentPassword, newPassword: f.newPassword }); form.reset(); setDone(true); });
  };
  return html`<section aria-labelledby="p-password"><h2 id="p-password">Password</h2>
    <form class="grid" onSubmit=${submit} aria-label="Change password">
      <label>Current password<input name="currentPassword" type="password" autocomplete="current-password" required /></label>
      <label>New password (8 characters at least)<input name="newPassword" type="password" autocomplete="new-password" required /></label>
      <div class="buttons"><button type="submit" disabled=${act.busy}>Change password</button></div>
    </form>
    ${done && html`<p role="status">Password changed; your other sessions are signed out.</p>`}
    <${ErrorBox} error=${act.error} /></section>`;
}

function SessionsSection() {
  const act = useAction();
  const state = useLoad(() => get('/console/sessions'), [session.value?.csrfToken]);
  /** @param {Json} s */
  const end = (s) => void act.run(async () => {
    if (s.current) return signOut();
    await api('DELETE', `/console/sessions/${encodeURIComponent(s.sessionId)}`);
    state.reload();
  });
  return html`<section aria-labelledby="p-sessions"><h2 id="p-sessions">Sessions</h2>
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`<${Table} label="Sessions" rows=${d.sessions} columns=${/** @type {Columns} */ ([
      { label: 'Signed in', cell: (s) => html`${when(s.createdAt)}${s.current ? html` <strong>(this one)</strong>` : ''}` },
      { label: 'Browser', cell: (s) => s.userAgent || '—' },
      { label: 'Team', cell: (s) => session.value?.person?.teams.find((t) => t.teamId === s.teamId)?.name ?? s.teamId },
      { label: 'Expires', cell: (s) => when(s.expiresAt) },
      { label: '', cell: (s) => html`<button type="button" aria-label=${s.current ? 'Sign out this session' : `Sign out the session of ${when(s.createdAt)}`} onClick=${() => end(s)}>Sign out</button>` },
    ])} />`}<//></section>`;
}

function TwoFactorSection() {
  const act = useAction();
  const [enrol, setEnrol] = useState(/** @type {{ secret: string, otpauthUri: string } | undefined} */ (undefined));
  const [codes, setCodes] = useState(/** @type {string[] | undefined} */ (undefined));
  const tf = session.value?.person?.twoFactor;
  const start = () => void act.run(async () => { setCodes(undefined); setEnrol(await postAsking('/console/two-factor')); });
  /** @param {SubmitEvent} e */
  const confirm = (e) => {
    const f = fields(e);
    void act.run(async () => {
      const r = await postAsking('/console/two-factor/confirm', { code: f.code });
      setEnrol(undefined);
      setCodes(r.recoveryCodes);
      await loadSession(); // on now, and in a team that requires it the session may act again
    });
  };
  /** @param {SubmitEvent} e */
  const disable = (e) => {
    const f = fields(e);
    void act.run(async () => { await postAsking('/console/two-factor/disable', { password: f.password, totp: f.totp }); setCodes(undefined); await loadSession(); });
  };
  return html`<section aria-labelledby="p-2fa"><h2 id="p-2fa">Two-factor sign-in</h2>
    ${codes && html`<div class="notice" role="status"><p><strong>Two-factor sign-in is on.</strong> Your recovery codes, each usable once instead of a code: keep them somewhere safe, they are shown only now.</p>
      <ul class="codes" aria-label="Recovery codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul></div>`}
    ${tf?.enabled
      ? html`<p>On: a code of your authenticator app is asked at each sign-in. ${tf.recoveryCodesLeft} recovery codes left.</p>
        <form class="grid" onSubmit=${disable} aria-label="Turn off two-factor sign-in">
          <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
          <label>Authentication code<input name="totp" inputmode="numeric" autocomplete="one-time-code" required /></label>
          <div class="buttons"><button type="submit" class="danger" disabled=${act.busy}>Turn off two-factor sign-in</button></div>
        </form>`
      : enrol
        ? html`<p>Add this account to your authenticator app with the link or the secret, then enter the code it shows.</p>
          <p>Secret: <code>${enrol.secret}</code> <${CopyButton} text=${enrol.secret} label="Copy the secret" /></p>
          <p>Link: <a href=${enrol.otpauthUri}><code>${enrol.otpauthUri}</code></a></p>
          <form class="inline" onSubmit=${confirm} aria-label="Confirm two-factor sign-in">
            <label>Code from the app<input name="code" inputmode="numeric" autocomplete="one-time-code" required /></label>
            <button type="submit" class="primary" disabled=${act.busy}>Turn on</button>
          </form>`
        : html`<p>Off.</p><button type="button" onClick=${start} disabled=${act.busy}>Set up two-factor sign-in</button>`}
    <${ErrorBox} error=${act.error} /></section>`;
}

/** Owner: whether the team's people act only with two-factor sign-in on (API keys are not affected). */
function TeamTwoFactor() {
  const act = useAction();
  const me = principal();
  const team = session.value?.person?.teams.find((t) => t.teamId === me?.teamId);
  if (me?.role !== 'Owner' || !team) return null;
  const set = (/** @type {boolean} */ required) => void act.run(async () => { await put('/console/team/two-factor', { required }); await loadSession(); });
  return html`<section aria-labelledby="p-team-2fa"><h2 id="p-team-2fa">Two-factor sign-in in ${team.name}</h2>
    <p role="status">${team.requiresTwoFactor ? 'Required: a member without it can only set it up before acting in this team.' : 'Not required of the team\'s members.'} API keys are not affected.</p>
    ${team.requiresTwoFactor
      ? html`<button type="button" onClick=${() => set(false)} disabled=${act.busy}>Stop requiring it</button>`
      : html`<button type="button" onClick=${() => set(true)} disabled=${act.busy}>Require two-factor sign-in in this team</button>`}
    <${ErrorBox} error=${act.error} /></section>`;
}

export function Profile() {
  const blocked = session.value?.kind === 'person' && !session.value.principal;
  const operatorClosed = !!session.value?.operator?.twoFactorRequired;
  return html`<h1>Your account</h1>
    ${operatorClosed && html`<p class="error" role="alert">Operator accounts require two-factor sign-in: set it up below to open the operator views.</p>`}
    ${blocked && !session.value?.operator && html`<p class="error" role="alert">Your team requires two-factor sign-in: set it up below to use the console's other pages.</p>`}
    <${EmailSection} /><${PasswordSection} /><${TwoFactorSection} /><${TeamTwoFactor} /><${SessionsSection} />`;
}
