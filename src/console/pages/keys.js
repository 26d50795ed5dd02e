// @ts-check
// Keys: the caller's keys (Owner/Admin: any member's), create (the secret shown once),
// revoke, the model-access policy editor and key budgets.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can, get, mayLimit, post, principal, put } from '../api.js';
import { ErrorBox, fields, Loaded, money, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

export function Keys() {
  const me = principal().memberId;
  const [memberId, setMemberId] = useState(me);
  const [created, setCreated] = useState(/** @type {Json} */ (undefined));
  const [editing, setEditing] = useState(/** @type {Json} */ (undefined));
  const act = useAction();
  const members = useLoad(async () => (can('manageMembers') ? (await get('/openapi/v1/user/team/members')).members : []));
  const state = useLoad(async () => {
    const [keys, budgets] = await Promise.all([
      get('/openapi/v1/user/keys', { member_id: memberId }),
      get('/openapi/v1/user/team/key-budget-list', { member_id: memberId }),
    ]);
    const budgetOf = Object.fromEntries(budgets.key_budgets.map((/** @type {Json} */ b) => [b.key_id, b]));
    return keys.keys.map((/** @type {Json} */ k) => ({ ...k, budget: budgetOf[k.keyId] }));
  }, [memberId]);
  /** @param {Submit} e */
  const create = (e) => {
    const { name } = fields(e);
    void act.run(async () => {
      setCreated(await post('/openapi/v1/user/keys', { name }));
      e.target.reset();
      state.reload();
    });
  };
  // the member whose keys are shown, for mayLimit (the list of members is Owner/Admin's only)
  /** @param {string} id */
  const holderOf = (id) => (id === me ? principal() : members.data?.find((/** @type {Json} */ m) => m.memberId === id) ?? { memberId: id, role: 'Owner' });
  /** @param {Json} k */
  const revoke = (k) => void act.run(async () => {
    if (!confirm(`Revoke ${k.name}? Calls with it stop at once.`)) return;
    await post(`/openapi/v1/user/keys/${encodeURIComponent(k.keyId)}/revoke`);
    state.reload();
  });
  return html`<h1>Keys</h1>
    ${can('manageMembers') && members.data && html`<label>Member <select value=${memberId} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => setMemberId(e.currentTarget.value)}>
      ${members.data.map((/** @type {Json} */ m) => html`<option value=${m.memberId}>${m.email} (${m.role})</option>`)}</select></label>`}
    ${memberId === me && html`<form class="inline" onSubmit=${create} aria-label="Create a key">
      <label>New key name<input name="name" required maxlength="255" /></label><button class="primary" type="submit" disabled=${act.busy}>Create key</button></form>`}
    ${created && html`<div class="notice" role="status">New key (shown once, copy it now): <span class="secret" data-testid="new-key">${created.apiKey}</span>
      <button type="button" onClick=${() => setCreated(undefined)}>Done</button></div>`}
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json[]} */ rows) => html`<${Table} label="Keys" rows=${rows} columns=${/** @type {Columns} */ ([
      { label: 'Name', cell: (k) => k.name }, { label: 'Key', cell: (k) => html`<code>${k.mask}</code>` }, { label: 'Status', cell: (k) => k.status },
      { label: 'Created', cell: (k) => when(k.createdAt) },
      { label: 'Budget', cell: (k) => (k.budget ? (k.budget.budget_type === 'Unlimited' ? 'Unlimited' : `${money(k.budget.remaining)} left of ${money(k.budget.budget_limit)}${k.budget.cycle ? ' monthly' : ''}`) : '—') },
      { label: 'Actions', cell: (k) => html`
        ${(can('readPolicy') || (can('updateKeyBudget') && mayLimit(holderOf(memberId)))) && k.status === 'active' && html`<button type="button" onClick=${() => setEditing(k)}>Edit</button> `}
        ${k.status === 'active' && html`<button type="button" class="danger" onClick=${() => revoke(k)}>Revoke</button>`}` },
    ])} />`}<//>
    ${editing && html`<${KeyBudget} key=${`b${editing.keyId}`} k=${editing} memberId=${memberId} holder=${holderOf(memberId)} onSaved=${state.reload} />
      <${Policy} key=${`p${editing.keyId}`} k=${editing} holder=${holderOf(memberId)} />`}`;
}

/** @param {{ k: Json, memberId: string, holder: { memberId: string, role: string }, onSaved: () => void }} props */
function KeyBudget({ k, memberId, holder, onSaved }) {
  const act = useAction();
  const [type, setType] = useState(k.budget?.budget_type ?? 'Unlimited');
  if (!can('updateKeyBudget') || !mayLimit(holder)) return null;
  /** @param {Submit} e */
  const save = (e) => {
    const f = fields(e);
    void act.run(async () => {
      /** @type {Record<string, string | undefined>} */
      const body = { member_id: memberId, key_id: k.keyId, budget_type: f.budget_type };
      if (f.budget_type !== 'Unlimited') body.budget_limit = String(Math.round(Number(f.dollars) * 10000));
      if (f.budget_type === 'Recurring') body.cycle = 'Monthly';
      await put('/openapi/v1/user/team/key-budget', body);
      onSaved();
    });
  };
  return html`<h2>Budget of ${k.name}</h2>
    <form class="inline" onSubmit=${save} aria-label="Key budget">
      <label>Type<select name="budget_type" value=${type} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => setType(e.currentTarget.value)}>
        <option>Unlimited</option><option>One-time</option><option>Recurring</option></select></label>
      ${type !== 'Unlimited' && html`<label>Limit (USD, at least 1.00)<input name="dollars" type="number" min="1" step="0.01" required /></label>`}
      <button class="primary" type="submit" disabled=${act.busy}>Save budget</button>
    </form><${ErrorBox} error=${act.error} />`;
}

/** @param {{ k: Json, holder: { memberId: string, role: string } }} props */
function Policy({ k, holder }) {
  const act = useAction();
  const [saved, setSaved] = useState(false);
  const state = useLoad(async () => {
    const [policy, models] = await Promise.all([
      get(`/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/model-access-policy`),
      can('callModels') ? get('/openai/v1/models') : { data: [] },
    ]);
    return { policy, models: models.data };
  });
  if (!can('readPolicy')) return null;
  const write = can('writePolicy') && mayLimit(holder);
  /** @param {Submit} e */
  const save = (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const mode = form.get('mode');
    const chosen = form.getAll('model').map((id) => ({ type: 'llm', id }));
    void act.run(async () => {
      await put(`/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/model-access-policy`,
        { mode, allowedModels: mode === 'selected' ? chosen : [], excludedModels: mode === 'all_enabled' ? chosen : [] });
      setSaved(true);
      state.reload();
    });
  };
  return html`<h2>Model access of ${k.name}</h2><${Loaded} state=${state}>${(/** @type {{ policy: Json, models: Json[] }} */ { policy, models }) => {
    const p = policy.policy;
    const listed = new Set((p.mode === 'selected' ? p.allowedModels : p.excludedModels).map((/** @type {Json} */ m) => m.id));
    const available = new Set(models.map((m) => m.id));
    const all = [...new Set([...available, ...listed])].sort();
    return html`<form onSubmit=${save} aria-label="Model access policy">
      <fieldset disabled=${!write}><legend>Mode</legend>
        <label class="check"><input type="radio" name="mode" value="all_enabled" checked=${p.mode === 'all_enabled'} /> every enabled model, except those ticked</label>
        <label class="check"><input type="radio" name="mode" value="selected" checked=${p.mode === 'selected'} /> only the models ticked</label>
      </fieldset>
      <fieldset disabled=${!write}><legend>Models</legend>
        ${all.map((id) => {
          const reason = available.has(id) ? '' : 'not enabled for the team, unavailable, or outside the signed-in key\'s own policy';
          return html`<label class="check"><input type="checkbox" name="model" value=${id} checked=${listed.has(id)} disabled=${!!reason} />
            ${id}${reason && html` <span class="muted">(cannot be chosen: ${reason})</span>`}</label>`;
        })}
      </fieldset>
      ${write ? html`<button class="primary" type="submit" disabled=${act.busy}>Save policy</button>` : html`<p class="muted">Your role may read this policy, not change it.</p>`}
      ${write && p.source?.type === 'private_policy' && html` <button type="button" onClick=${() => void act.run(async () => { await api('DELETE', `/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/model-access-policy`); state.reload(); })}>Reset to default</button>`}
      ${saved && html`<span role="status"> Saved.</span>`}
    </form><${ErrorBox} error=${act.error} />`;
  }}<//>`;
}
