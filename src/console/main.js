// @ts-check
// The console: sign-in, the shell (navigation by role) and a hash router over the pages.
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, loadSession, principal, session, signIn, signOut } from './api.js';
import { ErrorBox, NetworkBanner, useAction } from './ui.js';
import { Overview } from './pages/overview.js';
import { Keys } from './pages/keys.js';
import { Members } from './pages/members.js';
import { Instances } from './pages/instances.js';
import { Usage } from './pages/usage.js';
import { Serverless } from './pages/serverless.js';
import { FilesBatches } from './pages/files.js';
import { Webhooks } from './pages/webhooks.js';
import { Operator } from './pages/operator.js';

/**
 * A page whose module is fetched when it is first opened, not with the first view (the
 * docs/console.md states the first view's weight); the module is kept once loaded.
 * @param {() => Promise<Page>} load
 */
function lazy(load) {
  /** @type {Page | undefined} */
  let loaded;
  /** @param {PageProps} props */
  return function LazyPage(props) {
    const [Page, setPage] = useState(() => loaded);
    const [error, setError] = useState();
    useEffect(() => {
      if (!loaded) load().then((c) => { loaded = c; setPage(() => c); }, setError);
    }, []);
    if (error) return html`<${ErrorBox} error=${error} />`;
    return Page ? html`<${Page} ...${props} />` : html`<p class="muted" aria-busy="true">Loading…</p>`;
  };
}
const Models = lazy(() => import('./pages/models.js').then((m) => m.Models));
const Tasks = lazy(() => import('./pages/tasks.js').then((m) => m.Tasks));
const SshKeys = lazy(() => import('./pages/ssh-keys.js').then((m) => m.SshKeys));

/**
 * @typedef {import('./ui.js').PageProps} PageProps
 * @typedef {import('preact').FunctionComponent<PageProps>} Page
 */

/** Pages of a team member, each shown only to roles that may read what it shows. */
const MEMBER_PAGES = [
  { path: 'overview', title: 'Overview', page: Overview, show: () => true },
  { path: 'usage', title: 'Usage and bills', page: Usage, show: () => can('readBilling') },
  { path: 'keys', title: 'Keys', page: Keys, show: () => can('manageOwnKeys') },
  // every member: Basic and Billing are told there why they may not register one
  { path: 'ssh-keys', title: 'SSH keys', page: SshKeys, show: () => true },
  { path: 'members', title: 'Members and budgets', page: Members, show: () => can('manageMembers') },
  { path: 'instances', title: 'Instances', page: Instances, show: () => can('readCompute') },
  { path: 'serverless', title: 'Serverless', page: Serverless, show: () => can('readCompute') },
  { path: 'files', title: 'Files and batches', page: FilesBatches, show: () => can('callModels') },
  { path: 'models', title: 'Models', page: Models, show: () => can('callModels') },
  { path: 'tasks', title: 'Async tasks', page: Tasks, show: () => can('callModels') },
  { path: 'webhooks', title: 'Webhooks', page: Webhooks, show: () => can('manageWebhooks') },
];
const OPERATOR_PAGES = [{ path: 'operator', title: 'Operator', page: Operator, show: () => true }];

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash.replace(/^#\/?/, '');
}

function SignIn() {
  const [mode, setMode] = useState('key');
  const act = useAction();
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    e.preventDefault();
    const secret = /** @type {string} */ (new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)).get('secret'));
    void act.run(() => signIn(mode === 'key' ? { apiKey: secret } : { operatorToken: secret }));
  };
  return html`<main class="login">
    <h1>Gantry console</h1>
    <form onSubmit=${submit}>
      <fieldset><legend>Sign in with</legend>
        <label class="check"><input type="radio" name="mode" checked=${mode === 'key'} onChange=${() => setMode('key')} /> an API key</label>
        <label class="check"><input type="radio" name="mode" checked=${mode === 'operator'} onChange=${() => setMode('operator')} /> the operator token</label>
      </fieldset>
      <label>${mode === 'key' ? 'API key' : 'Operator token'}<input name="secret" type="password" autocomplete="off" required autofocus /></label>
      <button class="primary" type="submit" disabled=${act.busy}>Sign in</button>
      <p class="muted">The key is exchanged for a session cookie the page cannot read; it is not kept in the browser.</p>
    </form>
    <${ErrorBox} error=${act.error} />
  </main>`;
}

/**
 * Moves focus to the page's heading (for a screen reader, where the page starts), once the
 * page has drawn it: a page's heading may come with its data. Unless `force` (the skip link),
 * focus the person moved meanwhile (into a field of the new page) is left where it is.
 * @param {HTMLElement} main
 * @param {boolean} [force]
 */
function focusHeading(main, force = false) {
  const free = () => {
    const a = document.activeElement;
    return force || !a || a === document.body || a === main || !!a.closest('nav.side');
  };
  const put = () => {
    const h = /** @type {HTMLElement | null} */ (main.querySelector('h1'));
    if (!h) return false;
    if (!free()) return true;
    h.tabIndex = -1;
    h.focus();
    return true;
  };
  if (put()) return () => {};
  const watch = new MutationObserver(() => { if (put()) watch.disconnect(); });
  watch.observe(main, { childList: true, subtree: true });
  // a page that never draws a heading: the main region
  const giveUp = setTimeout(() => { watch.disconnect(); if (free()) main.focus(); }, 10_000);
  return () => { watch.disconnect(); clearTimeout(giveUp); };
}

/**
 * An address of a page this role does not see (or of no page): said so, instead of another page.
 * @param {{ path: string, title: string | undefined, role: string, home: string }} props
 */
function NotAvailable({ path, title, role, home }) {
  return html`<h1>${title ? 'Not available to your role' : 'No such page'}</h1>
    <p>${title ? `${title} (#/${path}) is not available to ${role === 'Operator' ? 'the operator' : `the ${role} role`}.` : `There is no page #/${path}.`}
    ${' '}<a href=${`#/${home}`}>Go to the first page</a>.</p>`;
}

function Shell() {
  const route = useHash();
  const operator = /** @type {import('./api.js').Session} */ (session.value).kind === 'operator';
  const all = operator ? OPERATOR_PAGES : MEMBER_PAGES;
  const pages = all.filter((p) => p.show());
  const [path = '', ...rest] = route.split('/');
  const home = /** @type {(typeof pages)[number]} */ (pages[0]); // a role sees one page at least
  const current = path === '' ? home : pages.find((p) => p.path === path);
  const known = [...MEMBER_PAGES, ...OPERATOR_PAGES].find((p) => p.path === path); // a page of another role
  const title = current?.title ?? (known ? 'Not available' : 'No such page');
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef(/** @type {HTMLElement | undefined} */ (undefined));
  const first = useRef(true);
  useEffect(() => { document.title = `${title} · Gantry console`; }, [title]);
  useEffect(() => {
    setMenuOpen(false);
    // focus goes to the new page's heading on navigation, not when the console opens
    if (first.current) { first.current = false; return undefined; }
    return main.current ? focusHeading(main.current) : undefined;
  }, [route]);
  const who = operator ? 'Operator' : `${principal().role} · ${principal().memberId}`;
  /** @param {MouseEvent} e */
  const skip = (e) => { e.preventDefault(); if (main.current) focusHeading(main.current, true); }; // the hash is the router's: no #main
  return html`<a class="skip" href="#main" onClick=${skip}>Skip to content</a>
  <div class="shell">
    <nav class="side" aria-label="Console">
      <div class="brand"><strong>Gantry</strong>
        <button type="button" class="menu-toggle" aria-expanded=${menuOpen ? 'true' : 'false'} aria-controls="nav-pages" onClick=${() => setMenuOpen(!menuOpen)}>Menu</button></div>
      <div id="nav-pages" class=${menuOpen ? 'nav-pages open' : 'nav-pages'}>
        <div class="who">${who}</div>
        <ul>${pages.map((p) => html`<li><a href=${`#/${p.path}`} aria-current=${p === current ? 'page' : undefined}>${p.title}</a></li>`)}</ul>
        <p><button type="button" onClick=${() => signOut()}>Sign out</button></p>
      </div>
    </nav>
    <main id="main" ref=${main} tabindex="-1">
      <${NetworkBanner} />
      ${current
        ? html`<${current.page} key=${current.path} args=${rest} />`
        : html`<${NotAvailable} path=${path} title=${known?.title} role=${operator ? 'Operator' : principal().role} home=${home.path} />`}
    </main>
  </div>`;
}

function App() {
  if (session.value === undefined) return html`<p class="loading">Loading…</p>`;
  return session.value ? html`<${Shell} />` : html`<${SignIn} />`;
}

await loadSession();
const root = /** @type {HTMLElement} */ (document.getElementById('app'));
root.textContent = ''; // the loading note
render(html`<${App} />`, root);
