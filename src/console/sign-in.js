// @ts-check
// The console's pages for someone not signed in (issue 43): sign-in (a person's e-mail and
// password with the second factor when the API asks for it; an API key or the operator token
// for developers using Gantry as a local stand-in), sign-up, forgot password, and the pages the
// e-mailed links open (`#/confirm`, `#/reset`, `#/invite`, `#/email`, `#/operator-invite`, each `?token=…`). Every
// refusal is shown as the API words it: a wrong address and a wrong password read the same.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { loadSession, openWith, postAsking, session, signIn } from './api.js';
import { ErrorBox, fields, useAction } from './ui.js';

/** The paths of these pages: shown whether or not someone is signed in (a link opens them). */
export const LINK_PAGES = ['sign-up', 'forgot', 'confirm', 'reset', 'invite', 'email', 'operator-invite'];

/** After a link signed the person in: the console's first page. */
function home() {
  location.hash = '#/';
}

/**
 * The second factor asked for after the password (the API answers 401 naming `totp`): the
 * authenticator app's code, or one of the recovery codes instead.
 * @param {{ kind: '' | 'totp' | 'recovery', setKind: (k: '' | 'totp' | 'recovery') => void }} props
 */
function SecondFactor({ kind, setKind }) {
  if (!kind) return null;
  return html`<div class="second-factor">
    <p role="status">Two-factor sign-in is on for this account.</p>
    ${kind === 'totp'
      ? html`<label>Authentication code (from your authenticator app)<input name="totp" inputmode="numeric" autocomplete="one-time-code" required autofocus /></label>
        <button type="button" class="link" onClick=${() => setKind('recovery')}>Use a recovery code instead</button>`
      : html`<label>Recovery code<input name="recoveryCode" autocomplete="off" required autofocus /></label>
        <button type="button" class="link" onClick=${() => setKind('totp')}>Use the authenticator app's code instead</button>`}
  </div>`;
}

/**
 * The second factor of a form, as the API takes it.
 * @param {'' | 'totp' | 'recovery'} kind
 * @param {Record<string, string>} f
 */
function factor(kind, f) {
  if (kind === 'totp') return { totp: f.totp ?? '' };
  if (kind === 'recovery') return { recoveryCode: f.recoveryCode ?? '' };
  return {};
}

/**
 * Runs a sign-in that may be asked for the second factor: the first such refusal shows the
 * code's field (not an error); a wrong code is an error.
 * @param {'' | 'totp' | 'recovery'} kind
 * @param {(k: '' | 'totp' | 'recovery') => void} setKind
 * @param {() => Promise<unknown>} fn
 */
async function withFactor(kind, setKind, fn) {
  try {
    await fn();
  } catch (err) {
    const e = /** @type {{ status?: number, field?: string }} */ (err);
    if (!kind && e.status === 401 && e.field === 'totp') { setKind('totp'); return; }
    throw err;
  }
}

/** @param {{ title: string, children: unknown }} props */
function Page({ title, children }) {
  return html`<main class="login"><h1>${title}</h1>${children}
    <p class="muted"><a href="#/">Sign in</a> · <a href="#/sign-up">Create an account</a> · <a href="#/forgot">Forgot your password?</a></p></main>`;
}

export function SignIn() {
  const [mode, setMode] = useState('person');
  const [second, setSecond] = useState(/** @type {'' | 'totp' | 'recovery'} */ (''));
  const act = useAction();
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    void act.run(async () => {
      if (mode === 'person') return withFactor(second, setSecond, () => signIn({ email: f.email ?? '', password: f.password ?? '', ...factor(second, f) }));
      return signIn(mode === 'key' ? { apiKey: f.secret ?? '' } : { operatorToken: f.secret ?? '' });
    });
  };
  /** @param {string} m */
  const choose = (m) => () => { setMode(m); setSecond(''); act.clear(); };
  return html`<main class="login">
    <h1>Gantry console</h1>
    <form onSubmit=${submit}>
      <fieldset><legend>Sign in with</legend>
        <label class="check"><input type="radio" name="mode" checked=${mode === 'person'} onChange=${choose('person')} /> your e-mail address and password</label>
        <label class="check"><input type="radio" name="mode" checked=${mode === 'key'} onChange=${choose('key')} /> an API key (developers, Gantry as a local stand-in)</label>
        <label class="check"><input type="radio" name="mode" checked=${mode === 'operator'} onChange=${choose('operator')} /> the operator token</label>
      </fieldset>
      ${mode === 'person'
        ? html`<label>E-mail address<input name="email" type="email" autocomplete="username" required autofocus /></label>
          <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
          <${SecondFactor} kind=${second} setKind=${setSecond} />`
        : html`<label>${mode === 'key' ? 'API key' : 'Operator token'}<input name="secret" type="password" autocomplete="off" required autofocus /></label>`}
      <button class="primary" type="submit" disabled=${act.busy}>Sign in</button>
      ${mode === 'person'
        ? html`<p class="muted"><a href="#/forgot">Forgot your password?</a> · <a href="#/sign-up">Create an account</a></p>`
        : html`<p class="muted">For developers and scripts using Gantry as a local stand-in: the key is exchanged for a session cookie the page cannot read; it is not kept in the browser. People sign in with their e-mail address.</p>`}
    </form>
    <${ErrorBox} error=${act.error} />
  </main>`;
}

function SignUp() {
  const act = useAction();
  const [sent, setSent] = useState('');
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    void act.run(async () => { await postAsking('/console/sign-up', { email: f.email, password: f.password }); setSent(f.email ?? ''); });
  };
  return html`<${Page} title="Create an account">
    ${sent
      ? html`<p role="status">Check your inbox: a link to confirm ${sent} is on its way (if the address can be used). Follow it to finish.</p>`
      : html`<form onSubmit=${submit}>
        <label>E-mail address<input name="email" type="email" autocomplete="email" required autofocus /></label>
        <label>Password (8 characters at least)<input name="password" type="password" autocomplete="new-password" required /></label>
        <button class="primary" type="submit" disabled=${act.busy}>Create account</button>
      </form>`}
    <${ErrorBox} error=${act.error} />
  <//>`;
}

/** @param {{ token: string }} props */
function Confirm({ token }) {
  const act = useAction();
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    void act.run(async () => { await openWith('/console/confirm', { token, password: f.password }); home(); });
  };
  return html`<${Page} title="Confirm your e-mail address">
    <form onSubmit=${submit}>
      <p>Enter the password you chose when you signed up: your account is made and you are signed in.</p>
      <label>Password<input name="password" type="password" autocomplete="current-password" required autofocus /></label>
      <button class="primary" type="submit" disabled=${act.busy}>Confirm address</button>
    </form>
    <${ErrorBox} error=${act.error} />
  <//>`;
}

function Forgot() {
  const act = useAction();
  const [sent, setSent] = useState('');
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    void act.run(async () => { await postAsking('/console/password/forgot', { email: f.email }); setSent(f.email ?? ''); });
  };
  return html`<${Page} title="Forgot your password?">
    ${sent
      ? html`<p role="status">If ${sent} has an account, a link to choose a new password is on its way.</p>`
      : html`<form onSubmit=${submit}>
        <label>E-mail address<input name="email" type="email" autocomplete="email" required autofocus /></label>
        <button class="primary" type="submit" disabled=${act.busy}>Send a reset link</button>
      </form>`}
    <${ErrorBox} error=${act.error} />
  <//>`;
}

/** @param {{ token: string }} props */
function Reset({ token }) {
  const act = useAction();
  const [done, setDone] = useState(false);
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    void act.run(async () => {
      await postAsking('/console/password/reset', { token, password: f.password });
      setDone(true);
      if (session.value) await loadSession(); // a reset signs out every session of the account
    });
  };
  return html`<${Page} title="Choose a new password">
    ${done
      ? html`<p role="status">Your password is changed and every session of the account is signed out. <a href="#/">Sign in</a> with the new one.</p>`
      : html`<form onSubmit=${submit}>
        <label>New password (8 characters at least)<input name="password" type="password" autocomplete="new-password" required autofocus /></label>
        <button class="primary" type="submit" disabled=${act.busy}>Set the password</button>
      </form>`}
    <${ErrorBox} error=${act.error} />
  <//>`;
}

/**
 * A team's invitation, or (`operator`) the operator's link that makes the address an operator account.
 * @param {{ token: string, operator?: boolean }} props
 */
function Invite({ token, operator = false }) {
  const act = useAction();
  const [second, setSecond] = useState(/** @type {'' | 'totp' | 'recovery'} */ (''));
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    const f = fields(e);
    void act.run(() => withFactor(second, setSecond, async () => {
      await openWith(operator ? '/console/operator-invitation/accept' : '/console/invitations/accept', { token, password: f.password, ...factor(second, f) });
      home();
    }));
  };
  return html`<${Page} title=${operator ? 'Become an operator' : 'Accept the invitation'}>
    <form onSubmit=${submit}>
      <p>If the invited address has an account, enter its password. If not, choose one (8 characters at least): the account is made with it.</p>
      ${operator && html`<p>Operator accounts require two-factor sign-in: the operator views open once it is on.</p>`}
      <label>Password<input name="password" type="password" autocomplete="current-password" required autofocus /></label>
      <${SecondFactor} kind=${second} setKind=${setSecond} />
      <button class="primary" type="submit" disabled=${act.busy}>Accept invitation</button>
    </form>
    <${ErrorBox} error=${act.error} />
  <//>`;
}

/** @param {{ token: string }} props */
function EmailConfirm({ token }) {
  const act = useAction();
  const [done, setDone] = useState(false);
  const confirm = () => void act.run(async () => {
    await postAsking('/console/email/confirm', { token });
    setDone(true);
    if (session.value) await loadSession(); // the address shown is the new one
  });
  return html`<${Page} title="Confirm your new e-mail address">
    ${done
      ? html`<p role="status">Your address is changed: sign in with the new one from now on.</p>`
      : html`<button class="primary" type="button" onClick=${confirm} disabled=${act.busy}>Confirm the new address</button>`}
    <${ErrorBox} error=${act.error} />
  <//>`;
}

/**
 * The page of one of LINK_PAGES, its token read from the address (`#/confirm?token=…`).
 * @param {{ path: string, query: string }} props
 */
export function LinkPage({ path, query }) {
  const token = new URLSearchParams(query).get('token') ?? '';
  if (path === 'sign-up') return html`<${SignUp} />`;
  if (path === 'forgot') return html`<${Forgot} />`;
  if (!token) return html`<${Page} title="This link has no token"><p>Open the link from the message as it is (the part after <code>?token=</code> is needed).</p><//>`;
  if (path === 'confirm') return html`<${Confirm} token=${token} />`;
  if (path === 'reset') return html`<${Reset} token=${token} />`;
  if (path === 'invite') return html`<${Invite} token=${token} />`;
  if (path === 'operator-invite') return html`<${Invite} token=${token} operator />`;
  return html`<${EmailConfirm} token=${token} />`;
}
