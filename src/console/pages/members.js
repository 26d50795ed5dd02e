// @ts-check
// Members and budgets (Owner/Admin): members, roles, adding and disabling, member budgets.
// Each budget shows what is saved (and, when Unlimited, what the member spent this month), and
// its editor starts from it: Save never overwrites a budget nobody changed. A refused form
// keeps what was typed and shows why at the field.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, get, mayLimit, post, put } from '../api.js';
import { confirmDialog, ErrorBox, Field, fields, Loaded, Money, refusalAt, Status, Table, useAction, useLoad, when } from '../ui.js';
import { parseDollars } from '../money.js';
import { monthSpend } from '../spend.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const ROLES = ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'];
/** The largest budget the API takes (2^53 − 1 units, domain/budgets/README.md). */
export const MAX_BUDGET_UNITS = 2n ** 53n - 1n;

/**
 * A budget as saved: "$12.00 left of $30.00 monthly", or Unlimited with this month's spend
 * when it is known (the budget lists report `used` only where a budget is set).
 * @param {{ budget: Json | undefined, spent: bigint | undefined }} props
 */
export function BudgetSummary({ budget, spent }) {
  if (budget && budget.budget_type !== 'Unlimited') {
    return html`<span data-testid="budget-summary"><${Money} units=${budget.remaining} /> left of <${Money} units=${budget.budget_limit} /> ${budget.budget_type === 'Recurring' ? 'monthly' : 'one-time'}
      <div class="muted"><${Money} units=${budget.used} /> used${budget.budget_type === 'Recurring' ? ' this month' : ' since it was set'}</div></span>`;
  }
  return html`<span data-testid="budget-summary">Unlimited${spent !== undefined ? html`<div class="muted"><${Money} units=${spent} /> spent this month</div>` : ''}</span>`;
}

/**
 * A budget editor (a member's or a key's): type and limit in dollars, starting from the saved
 * budget; the limit is checked at its field before it is sent; what was typed stays after a
 * refusal; "Saved." only when the save went through.
 * @param {{ budget: Json | undefined, label: string, idPrefix: string, onSave: (body: { budget_type: string, budget_limit?: string, cycle?: string }) => Promise<void>, compact?: boolean }} props
 */
export function BudgetEditor({ budget, label, idPrefix, onSave, compact }) {
  const act = useAction();
  const saved0 = budget && budget.budget_type !== 'Unlimited'
    ? { type: String(budget.budget_type), dollars: (Number(budget.budget_limit) / 10000).toFixed(2) } : { type: 'Unlimited', dollars: '' };
  const [form, setForm] = useState(saved0);
  const [check, setCheck] = useState(/** @type {string | undefined} */ (undefined));
  const [saved, setSaved] = useState(false);
  const refused = refusalAt(act.error, { budget_limit: 'dollars', budget_type: 'type', cycle: 'type' });
  /** @param {'type' | 'dollars'} k */
  const set = (k) => (/** @type {On<HTMLInputElement | HTMLSelectElement>} */ e) => {
    const value = e.currentTarget.value;
    setForm((f) => ({ ...f, [k]: value }));
    setSaved(false);
    setCheck(undefined);
    if (refused[k]) act.clear();
  };
  /** @param {Submit} e */
  const save = (e) => {
    e.preventDefault();
    setSaved(false);
    act.clear();
    /** @type {{ budget_type: string, budget_limit?: string, cycle?: string }} */
    const body = { budget_type: form.type };
    if (form.type !== 'Unlimited') {
      const d = parseDollars(form.dollars, { min: 10000n, max: MAX_BUDGET_UNITS });
      if ('error' in d) return setCheck(d.error);
      body.budget_limit = d.units;
    }
    if (form.type === 'Recurring') body.cycle = 'Monthly';
    setCheck(undefined);
    void act.run(async () => { await onSave(body); setSaved(true); });
  };
  const dollarsError = check ?? refused.dollars;
  return html`<form class=${compact ? 'inline' : 'grid'} onSubmit=${save} aria-label=${label} novalidate>
    <${Field} id=${`${idPrefix}-type`} label="Budget type" error=${refused.type} control=${(/** @type {Record<string, string | undefined>} */ a) => html`<select name="budget_type" value=${form.type} onChange=${set('type')} ...${a}>
      <option value="Unlimited">Unlimited</option><option value="One-time">One-time</option><option value="Recurring">Recurring (monthly)</option></select>`} />
    ${form.type !== 'Unlimited' && html`<${Field} id=${`${idPrefix}-dollars`} label="Limit (USD, at least 1.00)" error=${dollarsError}
      control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="dollars" inputmode="decimal" placeholder="30.00" value=${form.dollars} onInput=${set('dollars')} ...${a} />`} />`}
    <div class="buttons"><button type="submit" class=${compact ? '' : 'primary'} disabled=${act.busy}>Save budget</button>
      ${saved && !act.error && !check && html`<span role="status">Saved.</span>`}</div>
  </form>${!Object.keys(refused).length && html`<${ErrorBox} error=${act.error} />`}`;
}

/**
 * Invitations (Owner/Admin): an address and a role; the person gets a link, signs up or in, and
 * takes the seat. Listed with their state and expiry; a pending one can be revoked, a pending or
 * expired one sent again (a new link; the one before stops working).
 * @param {{ onChange: () => void }} props
 */
function Invitations({ onChange }) {
  const act = useAction();
  const [refused, setRefused] = useState(/** @type {Record<string, string>} */ ({}));
  const [sent, setSent] = useState('');
  const state = useLoad(() => get('/console/invitations'));
  /** @param {Submit} e */
  const invite = (e) => {
    const f = fields(e);
    const form = e.currentTarget;
    setRefused({});
    setSent('');
    void act.run(async () => {
      try {
        await post('/console/invitations', { email: f.email, role: f.role });
      } catch (err) {
        setRefused(refusalAt(err, { email: 'email', role: 'role' }));
        throw err;
      }
      form.reset();
      setSent(f.email ?? '');
      state.reload();
      onChange();
    });
  };
  /** @param {Json} i */
  const revoke = (i) => void act.run(async () => {
    if (!await confirmDialog(`Revoke the invitation of ${i.email}?`, { confirm: 'Revoke', detail: 'Its link stops working.' })) return;
    await api('DELETE', `/console/invitations/${encodeURIComponent(i.invitationId)}`);
    state.reload();
    onChange();
  });
  /** @param {Json} i a new link, for 7 days from now; the one sent before stops working */
  const resend = (i) => void act.run(async () => {
    setSent('');
    await post(`/console/invitations/${encodeURIComponent(i.invitationId)}/resend`);
    setSent(`${i.email} again: the link sent before stops working`);
    state.reload();
  });
  return html`<section aria-labelledby="m-invitations"><h2 id="m-invitations">Invitations</h2>
    <form class="inline" onSubmit=${invite} aria-label="Invite a member">
      <${Field} id="inv-email" label="E-mail address" error=${refused.email} control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="email" type="email" required ...${a} />`} />
      <${Field} id="inv-role" label="Role" error=${refused.role} control=${(/** @type {Record<string, string | undefined>} */ a) => html`<select name="role" ...${a}>${ROLES.filter((r) => r !== 'Owner').map((r) => html`<option selected=${r === 'Developer'}>${r}</option>`)}</select>`} />
      <button class="primary" type="submit" disabled=${act.busy}>Send invitation</button>
    </form>
    ${sent && html`<p role="status">Invitation sent to ${sent}.</p>`}
    ${!Object.keys(refused).length && html`<${ErrorBox} error=${act.error} />`}
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`<${Table} label="Invitations" rows=${d.invitations} empty="No invitations yet." columns=${/** @type {Columns} */ ([
      { label: 'E-mail', cell: (i) => i.email },
      { label: 'Role', cell: (i) => i.role },
      { label: 'Status', cell: (i) => html`<${Status} value=${i.status} />` },
      { label: 'Expires', cell: (i) => when(i.expiresAt) },
      { label: 'Invited by', cell: (i) => i.invitedBy },
      { label: '', cell: (i) => (i.status === 'pending' || i.status === 'expired') && html`<span>
        <button type="button" aria-label=${`Send the invitation of ${i.email} again`} onClick=${() => resend(i)}>Send again</button>
        ${i.status === 'pending' && html`<button type="button" class="danger" aria-label=${`Revoke the invitation of ${i.email}`} onClick=${() => revoke(i)}>Revoke</button>`}</span>` },
    ])} />`}<//></section>`;
}

export function Members() {
  const act = useAction();
  const [addRefused, setAddRefused] = useState(/** @type {Record<string, string>} */ ({}));
  const state = useLoad(async () => {
    const [members, budgets] = await Promise.all([get('/openapi/v1/user/team/members'), get('/openapi/v1/user/team/budget-list')]);
    const budgetOf = Object.fromEntries(budgets.budgets.map((/** @type {Json} */ b) => [b.member_id, b]));
    // this month's spend, for the Unlimited ones: a detail that never hides the members
    const spend = await monthSpend(members.members.map((/** @type {Json} */ m) => m.memberId)).catch(() => undefined);
    return members.members.map((/** @type {Json} */ m) => ({ ...m, budget: budgetOf[m.memberId], spent: spend?.byMember?.get(m.memberId) }));
  });
  /** @param {Submit} e */
  const add = (e) => {
    const f = fields(e);
    const form = e.currentTarget;
    setAddRefused({});
    void act.run(async () => {
      try {
        await post('/openapi/v1/user/team/members', f);
      } catch (err) {
        setAddRefused(refusalAt(err, { email: 'email', role: 'role' }));
        throw err;
      }
      form.reset();
      state.reload();
    });
  };
  /** @type {(m: Json, r: string, select: HTMLSelectElement) => void} */
  const role = (m, r, select) => void act.run(async () => {
    // asked first (issue 32, item 8): a role is what the member may do with every key they hold
    if (!await confirmDialog(`Change the role of ${m.email} from ${m.role} to ${r}?`, { confirm: `Make ${r}`, detail: 'What they may do changes at once, for every key they hold.' })) {
      select.value = m.role;
      return;
    }
    await post(`/openapi/v1/user/team/members/${encodeURIComponent(m.memberId)}/role`, { role: r });
    state.reload();
  });
  /** @param {Json} m */
  const disable = (m) => void act.run(async () => {
    if (!confirm(`Disable ${m.email}? Their keys stop working.`)) return;
    await post(`/openapi/v1/user/team/members/${encodeURIComponent(m.memberId)}/disable`);
    state.reload();
  });
  return html`<h1>Members and budgets</h1>
    <form class="inline" onSubmit=${add} aria-label="Add a member">
      <${Field} id="am-email" label="E-mail" error=${addRefused.email} control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="email" type="email" required ...${a} />`} />
      <${Field} id="am-role" label="Role" error=${addRefused.role} control=${(/** @type {Record<string, string | undefined>} */ a) => html`<select name="role" ...${a}>${ROLES.filter((r) => r !== 'Owner').map((r) => html`<option>${r}</option>`)}</select>`} />
      <button class="primary" type="submit" disabled=${act.busy}>Add member</button>
    </form>
    ${!Object.keys(addRefused).length && html`<${ErrorBox} error=${act.error} />`}
    <${Loaded} state=${state}>${(/** @type {Json} */ rows) => html`<${Table} label="Members" rows=${rows} columns=${/** @type {Columns} */ ([
      { label: 'Member', cell: (m) => html`${m.email}<div class="muted">${m.memberId}</div>` },
      { label: 'Role', cell: (m) => html`<select aria-label=${`Role of ${m.email}`} value=${m.role} disabled=${m.status !== 'active'} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => role(m, e.currentTarget.value, e.currentTarget)}>${ROLES.map((r) => html`<option>${r}</option>`)}</select>` },
      { label: 'Status', cell: (m) => m.status },
      { label: 'Budget', cell: (m) => html`<${BudgetSummary} budget=${m.budget} spent=${m.spent} />` },
      { label: 'Set budget', cell: (m) => (mayLimit(m) ? html`<${BudgetEditor} key=${m.memberId} compact=${true} budget=${m.budget} label=${`Budget of ${m.email}`} idPrefix=${`mb-${m.memberId}`}
          onSave=${async (/** @type {Record<string, string>} */ body) => { await put('/openapi/v1/user/team/budget', { member_id: m.memberId, ...body }); state.reload(); }} />`
        : html`<span class="muted">set by ${m.role === 'Owner' ? 'an Owner' : 'another member'}</span>`) },
      { label: '', cell: (m) => m.status === 'active' && m.role !== 'Owner' && html`<button type="button" class="danger" onClick=${() => disable(m)}>Disable</button>` },
    ])} />`}<//>
    <${Invitations} onChange=${state.reload} />`;
}
