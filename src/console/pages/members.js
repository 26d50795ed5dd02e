// @ts-check
// Members and budgets (Owner/Admin): members, roles, adding and disabling, member budgets.
import { html } from 'htm/preact';
import { get, mayLimit, post, put } from '../api.js';
import { ErrorBox, fields, Loaded, money, Table, useAction, useLoad } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const ROLES = ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'];

export function Members() {
  const act = useAction();
  const state = useLoad(async () => {
    const [members, budgets] = await Promise.all([get('/openapi/v1/user/team/members'), get('/openapi/v1/user/team/budget-list')]);
    const budgetOf = Object.fromEntries(budgets.budgets.map((/** @type {Json} */ b) => [b.member_id, b]));
    return members.members.map((/** @type {Json} */ m) => ({ ...m, budget: budgetOf[m.memberId] }));
  });
  /** @param {Submit} e */
  const add = (e) => {
    const f = fields(e);
    const form = e.currentTarget;
    void act.run(async () => { await post('/openapi/v1/user/team/members', f); form.reset(); state.reload(); });
  };
  /** @type {(m: Json, r: string) => void} */
  const role = (m, r) => void act.run(async () => { await post(`/openapi/v1/user/team/members/${encodeURIComponent(m.memberId)}/role`, { role: r }); state.reload(); });
  /** @param {Json} m */
  const disable = (m) => void act.run(async () => {
    if (!confirm(`Disable ${m.email}? Their keys stop working.`)) return;
    await post(`/openapi/v1/user/team/members/${encodeURIComponent(m.memberId)}/disable`);
    state.reload();
  });
  /** @type {(m: Json) => (e: Submit) => void} */
  const budget = (m) => (e) => {
    const f = fields(e);
    /** @type {Record<string, string | undefined>} */
    const body = { member_id: m.memberId, budget_type: f.budget_type };
    if (f.budget_type !== 'Unlimited') body.budget_limit = String(Math.round(Number(f.dollars) * 10000));
    if (f.budget_type === 'Recurring') body.cycle = 'Monthly';
    void act.run(async () => { await put('/openapi/v1/user/team/budget', body); state.reload(); });
  };
  return html`<h1>Members and budgets</h1>
    <form class="inline" onSubmit=${add} aria-label="Add a member">
      <label>E-mail<input name="email" type="email" required /></label>
      <label>Role<select name="role">${ROLES.filter((r) => r !== 'Owner').map((r) => html`<option>${r}</option>`)}</select></label>
      <button class="primary" type="submit" disabled=${act.busy}>Add member</button>
    </form>
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ rows) => html`<${Table} label="Members" rows=${rows} columns=${/** @type {Columns} */ ([
      { label: 'Member', cell: (m) => html`${m.email}<div class="muted">${m.memberId}</div>` },
      { label: 'Role', cell: (m) => html`<select aria-label=${`Role of ${m.email}`} value=${m.role} disabled=${m.status !== 'active'} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => role(m, e.currentTarget.value)}>${ROLES.map((r) => html`<option>${r}</option>`)}</select>` },
      { label: 'Status', cell: (m) => m.status },
      { label: 'Budget', cell: (m) => (m.budget && m.budget.budget_type !== 'Unlimited' ? `${money(m.budget.remaining)} left of ${money(m.budget.budget_limit)} (${m.budget.budget_type})` : 'Unlimited') },
      { label: 'Set budget', cell: (m) => (mayLimit(m) ? html`<form class="inline" onSubmit=${budget(m)} aria-label=${`Budget of ${m.email}`}>
        <select name="budget_type" aria-label="Budget type"><option>Unlimited</option><option>One-time</option><option>Recurring</option></select>
        <input name="dollars" type="number" min="1" step="0.01" placeholder="USD" aria-label="Limit in USD" />
        <button type="submit">Save</button></form>` : html`<span class="muted">set by ${m.role === 'Owner' ? 'an Owner' : 'another member'}</span>`) },
      { label: '', cell: (m) => m.status === 'active' && m.role !== 'Owner' && html`<button type="button" class="danger" onClick=${() => disable(m)}>Disable</button>` },
    ])} />`}<//>`;
}
