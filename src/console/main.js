// @ts-check
// The console: sign-in, the shell (navigation by role) and a hash router over the pages.
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, loadSession, openWith, principal, session, signOut } from './api.js';
import { ErrorBox, NetworkBanner, useAction } from './ui.js';
import { LINK_PAGES, LinkPage, SignIn } from './sign-in.js';
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
const Profile = lazy(() => import('./pages/profile.js').then((m) => m.Profile));

/**
 * @typedef {import('./ui.js').PageProps} PageProps
 * @typedef {import('preact').FunctionComponent<PageProps>} Page
 */

/** A person's session acts in a team (no `principal` while the team requires two-factor sign-in they have not turned on). */
const inTeam = () => !!session.value?.principal;

/** Pages of a team member, each shown only to roles that may read what it shows. */
const MEMBER_PAGES = [
  { path: 'overview', title: 'Overview', page: Overview, show: inTeam },
  { path: 'usage', title: 'Usage and bills', page: Usage, show: () => can('readBilling') },
  { path: 'keys', title: 'Keys', page: Keys, show: () => can('manageOwnKeys') },
  // every member: Basic and Billing are told there why they may not register one
  { path: 'ssh-keys', title: 'SSH keys', page: SshKeys, show: inTeam },
  { path: 'members', title: 'Members and budgets', page: Members, show: () => can('manageMembers') },
  { path: 'instances', title: 'Instances', page: Instances, show: () => can('readCompute') },
  { path: 'serverless', title: 'Serverless', page: Serverless, show: () => can('readCompute') },
  { path: 'files', title: 'Files and batches', page: FilesBatches, show: () => can('callModels') },
  { path: 'models', title: 'Models', page: Models, show: () => can('callModels') },
  { path: 'tasks', title: 'Async tasks', page: Tasks, show: () => can('callModels') },
  { path: 'webhooks', title: 'Webhooks', page: Webhooks, show: () => can('manageWebhooks') },
  // a person's own account: e-mail, password, sessions, two-factor (not an API key's)
  { path: 'profile', title: 'Your account', page: Profile, show: () => session.value?.kind === 'person' },
];
const OPERATOR_PAGES = [{ path: 'operator', title: 'Operator', page: Operator, show: () => true }];

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    on(); // a change between the first render and this effect (which runs after a frame) is not missed
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash.replace(/^#\/?/, '');
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
  const person = /** @type {import('./api.js').Session} */ (session.value).person;
  const me = principal();
  // an operator account (a person) sees the operator views beside its team's pages, first when it acts in no team
  const grant = /** @type {import('./api.js').Session} */ (session.value).operator;
  const operatorPerson = !!grant && !grant.twoFactorRequired;
  const all = operator ? OPERATOR_PAGES : !operatorPerson ? MEMBER_PAGES : me ? [...MEMBER_PAGES, ...OPERATOR_PAGES] : [...OPERATOR_PAGES, ...MEMBER_PAGES];
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
  // (a team's pages are drawn again in another team; the account's page is the person's, whatever the team)
  // a person who may not act in the team until they set up two-factor: on their account's own
  // address, so the page (and the recovery codes it shows once) stays when the team's pages come
  const blocked = !!person && !me && !operatorPerson;
  useEffect(() => { if (blocked && path !== 'profile') location.hash = '#/profile'; }, [blocked, path]);
  useEffect(() => {
    setMenuOpen(false);
    // focus goes to the new page's heading on navigation, not when the console opens
    if (first.current) { first.current = false; return undefined; }
    return main.current ? focusHeading(main.current) : undefined;
  }, [route]);
  const who = operator ? 'Operator' : person ? `${person.email}${me ? ` · ${me.role}` : ''}` : `${me.role} · ${me.memberId}`;
  /** @param {MouseEvent} e */
  const skip = (e) => { e.preventDefault(); if (main.current) focusHeading(main.current, true); }; // the hash is the router's: no #main
  return html`<a class="skip" href="#main" onClick=${skip}>Skip to content</a>
  <div class="shell">
    <nav class="side" aria-label="Console">
      <div class="brand"><strong>Gantry</strong>
        <button type="button" class="menu-toggle" aria-expanded=${menuOpen ? 'true' : 'false'} aria-controls="nav-pages" onClick=${() => setMenuOpen(!menuOpen)}>Menu</button></div>
      <div id="nav-pages" class=${menuOpen ? 'nav-pages open' : 'nav-pages'}>
        <div class="who">${who}</div>
        ${person && html`<${TeamSwitcher} person=${person} onSwitched=${() => setMenuOpen(false)} />`}
        <ul>${pages.map((p) => html`<li><a href=${`#/${p.path}`} aria-current=${p === current ? 'page' : undefined}>${p.title}</a></li>`)}</ul>
        <p><button type="button" onClick=${() => signOut()}>Sign out</button></p>
      </div>
    </nav>
    <main id="main" ref=${main} tabindex="-1">
      <${NetworkBanner} />
      ${current
        ? html`<${current.page} key=${current.path === 'profile' ? 'profile' : `${current.path} ${me?.teamId ?? ''}`} args=${rest} />`
        : html`<${NotAvailable} path=${path} title=${known?.title} role=${operator ? 'Operator' : me?.role ?? 'signed-in'} home=${home.path} />`}
    </main>
  </div>`;
}

/**
 * The team a person's session acts in, and the others they hold a seat in: choosing one opens a
 * session there (the API ends this one), on the new team's first page.
 * @param {{ person: import('./api.js').Person, onSwitched: () => void }} props
 */
function TeamSwitcher({ person, onSwitched }) {
  const act = useAction();
  const current = principal()?.teamId ?? '';
  if (person.teams.length < 2) return null;
  /** @param {Event} e */
  const change = (e) => {
    const select = /** @type {HTMLSelectElement} */ (e.currentTarget);
    const teamId = select.value;
    void act.run(async () => {
      try {
        await openWith('/console/session/team', { teamId });
      } catch (err) {
        select.value = current; // refused (the team requires two-factor sign-in): still in this one
        throw err;
      }
      onSwitched();
      location.hash = '#/';
    });
  };
  return html`<div class="team-switch"><label>Team<select value=${current} onChange=${change} disabled=${act.busy}>
      ${!current && html`<option value="">(choose a team)</option>`}
      ${person.teams.map((t) => html`<option value=${t.teamId} disabled=${t.status !== 'active'}>${t.name} (${t.role})</option>`)}
    </select></label><${ErrorBox} error=${act.error} /></div>`;
}

function App() {
  const route = useHash();
  const [path = '', query = ''] = route.split('?');
  if (session.value === undefined) return html`<p class="loading">Loading…</p>`;
  // a link from a message (confirm, reset, invite, a new address) opens its page, signed in or not
  if (LINK_PAGES.includes(path)) return html`<${LinkPage} key=${path} path=${path} query=${query} />`;
  return session.value ? html`<${Shell} />` : html`<${SignIn} />`;
}

await loadSession();
const root = /** @type {HTMLElement} */ (document.getElementById('app'));
root.textContent = ''; // the loading note
render(html`<${App} />`, root);
