// @ts-check
// Operator views (signed in with the operator token): tenants with their balance and tier,
// top-ups, credit, tiers and quota overrides, suspension; creating a team hands over its
// Owner's first key (shown once: without it nobody can sign in to the new team); the model
// catalogue; GPU products, clusters and inventory.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post, put } from '../api.js';
import { confirmDialog, ErrorBox, Field, fields, Loaded, Money, Table, useAction, useLoad, when } from '../ui.js';
import { parseDollars } from '../money.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

/**
 * A view whose module is fetched when first opened (not part of the console's first view).
 * @param {() => Promise<import('preact').FunctionComponent>} load
 */
function lazyView(load) {
  /** @type {import('preact').FunctionComponent | undefined} */
  let loaded;
  return function LazyView() {
    const [View, setView] = useState(() => loaded);
    const [error, setError] = useState();
    useEffect(() => { if (!loaded) load().then((c) => { loaded = c; setView(() => c); }, setError); }, []);
    if (error) return html`<${ErrorBox} error=${error} />`;
    return View ? html`<${View} />` : html`<p class="muted" aria-busy="true">Loading…</p>`;
  };
}
const OperatorModels = lazyView(() => import('./operator-models.js').then((m) => m.OperatorModels));
const OperatorGpu = lazyView(() => import('./operator-gpu.js').then((m) => m.OperatorGpu));

/** @param {import('../ui.js').PageProps} props */
export function Operator({ args }) {
  const tab = args?.[0] || 'tenants';
  const tabs = { tenants: 'Tenants', models: 'Models', gpu: 'GPU catalogue' };
  return html`<h1>Operator</h1>
    <nav aria-label="Operator views"><p>${Object.entries(tabs).map(([k, v]) => html`<a href=${`#/operator/${k}`} aria-current=${tab === k ? 'page' : undefined}>${v}</a> · `)}</p></nav>
    ${tab === 'tenants' ? html`<${Tenants} id=${args?.[1]} />` : tab === 'models' ? html`<${OperatorModels} />` : html`<${OperatorGpu} />`}`;
}

/** @param {{ id: string | undefined }} props */
function Tenants({ id }) {
  const state = useLoad(() => get('/admin/v1/teams'));
  const act = useAction();
  const [handover, setHandover] = useState(/** @type {{ team: string, email: string, apiKey: string } | undefined} */ (undefined));
  /** @param {Submit} e */
  const create = (e) => {
    const f = fields(e);
    const form = e.currentTarget;
    setHandover(undefined);
    void act.run(async () => {
      const t = await post('/admin/v1/teams', f);
      form.reset();
      state.reload();
      // The team's Owner signs in with a key, and the team has none yet: make its first one now
      // and show it once (the operator hands it over; Gantry keeps only its hash).
      const k = await post(`/admin/v1/members/${encodeURIComponent(t.ownerMemberId)}/keys`, { name: 'owner' });
      setHandover({ team: /** @type {string} */ (f.name), email: /** @type {string} */ (f.ownerEmail), apiKey: k.apiKey });
    });
  };
  return html`
    <form class="inline" onSubmit=${create} aria-label="Create a team">
      <label>Team name<input name="name" required /></label><label>Owner e-mail<input name="ownerEmail" type="email" required /></label>
      <button class="primary" type="submit" disabled=${act.busy}>Create team</button>
    </form><${ErrorBox} error=${act.error} />
    ${handover && html`<div class="notice key-handover" role="status">Team ${handover.team} created. Its Owner (${handover.email}) signs in with this key, shown once: copy it now and hand it over.
      <div><span class="secret" data-testid="owner-key">${handover.apiKey}</span> <button type="button" onClick=${() => setHandover(undefined)}>Done</button></div></div>`}
    ${id && html`<${Tenant} key=${id} id=${id} onChanged=${state.reload} />`}
    <h2>Tenants</h2>
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`<${Table} label="Tenants" rows=${d.teams} columns=${/** @type {Columns} */ ([
      { label: 'Team', cell: (t) => html`<a href=${`#/operator/tenants/${t.userId}`}>${t.name}</a><div class="muted">${t.userId}</div>` },
      { label: 'Status', cell: (t) => t.status }, { label: 'Tier', cell: (t) => t.tier },
      { label: 'Models', cell: (t) => (t.enabledModels ? t.enabledModels.join(', ') : 'all') }, { label: 'Created', cell: (t) => when(t.createdAt) },
    ])} />`}<//>`;
}

/** The largest amount a top-up or credit limit takes (src/lib/money.ts MAX_AMOUNT_UNITS: $100,000,000). */
const MAX_AMOUNT_UNITS = 1_000_000_000_000n;

/** @param {{ id: string, onChanged: () => void }} props */
function Tenant({ id, onChanged }) {
  const state = useLoad(() => get(`/admin/v1/teams/${encodeURIComponent(id)}`), [id]);
  const act = useAction();
  const done = () => { state.reload(); onChanged(); };
  // amounts typed in dollars, checked at their field (1/10000 USD is the API's unit)
  const [bad, setBad] = useState(/** @type {Record<string, string>} */ ({}));
  /**
   * @param {'topup' | 'credit'} k
   * @param {Submit} e
   * @param {bigint} min
   * @param {(units: string) => Promise<unknown>} send
   */
  const amount = (k, e, min, send) => {
    const f = fields(e);
    const form = e.currentTarget;
    const d = parseDollars(f.dollars ?? '', { min, max: MAX_AMOUNT_UNITS });
    if ('error' in d) return setBad({ [k]: d.error });
    setBad({});
    void act.run(async () => { await send(d.units); form.reset(); done(); });
  };
  /** @param {Submit} e */
  const topup = (e) => amount('topup', e, 1n, (units) => post(`/admin/v1/teams/${id}/topups`, { amount: units, idempotencyKey: crypto.randomUUID() }));
  /** @param {Submit} e */
  const credit = (e) => amount('credit', e, 0n, (units) => put(`/admin/v1/teams/${id}/credit-limit`, { creditLimit: units }));
  /** @param {Submit} e */
  const tier = (e) => { const f = fields(e); void act.run(async () => { await put(`/admin/v1/teams/${id}/tier`, { tier: f.tier }); done(); }); };
  /** @param {Submit} e */
  const quota = (e) => {
    const f = fields(e);
    void act.run(async () => { await put(`/admin/v1/teams/${id}/quotas`, { model: f.model, quotaType: f.quotaType, currentQuota: f.value === '' ? null : f.value }); done(); });
  };
  /** @param {Json} t */
  const suspend = (t) => void act.run(async () => {
    // asked first (issue 32, item 8); resuming gives back, so it is not
    if (t.status === 'active' && !await confirmDialog(`Suspend the team ${t.name}?`, { confirm: 'Suspend team', detail: 'Every call with its keys is refused until it is resumed.' })) return;
    await post(`/admin/v1/teams/${id}/suspend`, { suspended: t.status === 'active' });
    done();
  });
  return html`<${Loaded} state=${state}>${(/** @type {Json} */ t) => html`
    <h2>${t.name}</h2>
    <div class="cards">
      <div class="card"><div class="label">Available</div><div class="value"><${Money} units=${t.balance.availableBalance} /></div></div>
      <div class="card"><div class="label">Cash</div><div class="value"><${Money} units=${t.balance.cashBalance} /></div></div>
      <div class="card"><div class="label">Vouchers</div><div class="value"><${Money} units=${t.balance.voucherBalance} /></div></div>
      <div class="card"><div class="label">Credit limit</div><div class="value"><${Money} units=${t.balance.creditLimit} /></div></div>
      <div class="card"><div class="label">Owed</div><div class="value"><${Money} units=${t.balance.outstandingInvoices} /></div></div>
      <div class="card"><div class="label">Held for running work</div><div class="value"><${Money} units=${t.balance.pendingCharges} /></div></div>
      <div class="card"><div class="label">Tier (effective)</div><div class="value">${t.tier} (${t.effectiveTier})</div></div>
    </div>
    <form class="inline" onSubmit=${topup} aria-label="Top up" novalidate><${Field} id="op-topup" label="Top up (USD)" error=${bad.topup}
      control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="dollars" inputmode="decimal" required onInput=${() => setBad({})} ...${a} />`} /><button type="submit">Top up</button></form>
    <form class="inline" onSubmit=${credit} aria-label="Credit limit" novalidate><${Field} id="op-credit" label="Credit limit (USD)" error=${bad.credit}
      control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="dollars" inputmode="decimal" required onInput=${() => setBad({})} ...${a} />`} /><button type="submit">Set credit</button></form>
    <form class="inline" onSubmit=${tier} aria-label="Tier"><label>Operator tier<select name="tier" value=${t.tier}>${['T1', 'T2', 'T3', 'T4', 'T5'].map((x) => html`<option>${x}</option>`)}</select></label><button type="submit">Set tier</button></form>
    <form class="inline" onSubmit=${quota} aria-label="Quota override"><label>Model<input name="model" required /></label>
      <label>Type<select name="quotaType"><option>RPM</option><option>TPM</option><option>IPM</option></select></label>
      <label>Limit (empty: back to the tier's)<input name="value" inputmode="numeric" pattern="[0-9]*" /></label><button type="submit">Override quota</button></form>
    <p><button type="button" class="danger" onClick=${() => suspend(t)}>${t.status === 'active' ? 'Suspend team' : 'Resume team'}</button></p>
    <${ErrorBox} error=${act.error} />`}<//>`;
}
