// @ts-check
// Keys: the caller's keys (Owner/Admin: any member's, and creating one for them), create (the
// secret shown once, with how to call the API with it), revoke, how to call the API with each
// key (key-snippets.js), the model-access policy editor and key budgets. The editors start
// from what is saved; choosing another member closes the previous member's editors and the
// secret shown once.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can, get, mayLimit, post, principal, put } from '../api.js';
import { confirmDialog, ErrorBox, Field, Loaded, refusalAt, Table, useAction, useLoad, when } from '../ui.js';
import { monthSpend } from '../spend.js';
import { BudgetEditor, BudgetSummary } from './members.js';
import { KeySnippets } from './key-snippets.js';

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
  const [created, setCreated] = useState(/** @type {{ apiKey: string, keyId: string, name: string, holder: string } | undefined} */ (undefined));
  // the key whose snippets are shown
  const [calling, setCalling] = useState(/** @type {string | undefined} */ (undefined));
  const [editing, setEditing] = useState(/** @type {string | undefined} */ (undefined));
  const [keyName, setKeyName] = useState('');
  const act = useAction();
  const members = useLoad(async () => (can('manageMembers') ? (await get('/openapi/v1/user/team/members')).members : []));
  const state = useLoad(async () => {
    const [keys, budgets, spend] = await Promise.all([
      get('/openapi/v1/user/keys', { member_id: memberId }),
      get('/openapi/v1/user/team/key-budget-list', { member_id: memberId }),
      monthSpend([]).catch(() => undefined), // a detail: spend by key for Unlimited budgets
    ]);
    const budgetOf = Object.fromEntries(budgets.key_budgets.map((/** @type {Json} */ b) => [b.key_id, b]));
    return keys.keys.map((/** @type {Json} */ k) => ({ ...k, budget: budgetOf[k.keyId], spent: spend?.byKey.get(k.keyId) ?? (spend ? 0n : undefined) }));
  }, [memberId]);
  // the member whose keys are shown, for mayLimit (the list of members is Owner/Admin's only)
  /** @param {string} id */
  const holderOf = (id) => (id === me ? principal() : members.data?.find((/** @type {Json} */ m) => m.memberId === id) ?? { memberId: id, role: 'Owner' });
  const holder = holderOf(memberId);
  const holderName = memberId === me ? 'you' : holder.email ?? memberId;
  /** Another member's keys are created by those who manage members; only an Owner creates one for an Owner. */
  const mayCreate = memberId === me || (can('manageMembers') && (holder.role !== 'Owner' || principal().role === 'Owner'));
  /** @param {string} id */
  const choose = (id) => {
    // what was on screen belonged to the previous member: the secret shown once, the editors
    setCreated(undefined);
    setEditing(undefined);
    setCalling(undefined);
    setKeyName('');
    act.clear();
    setMemberId(id);
  };
  const refused = refusalAt(act.error, { name: 'name' });
  /** @param {Submit} e */
  const create = (e) => {
    e.preventDefault();
    setCreated(undefined);
    const name = keyName;
    void act.run(async () => {
      const r = await post('/openapi/v1/user/keys', memberId === me ? { name } : { name, member_id: memberId });
      setCreated({ apiKey: r.apiKey, keyId: r.keyId, name, holder: holderName });
      setKeyName('');
      state.reload();
    });
  };
  /** @param {Json} k */
  const revoke = (k) => void act.run(async () => {
    if (!await askRevoke(k)) return;
    await post(`/openapi/v1/user/keys/${encodeURIComponent(k.keyId)}/revoke`);
    if (editing === k.keyId) setEditing(undefined);
    if (calling === k.keyId) setCalling(undefined);
    state.reload();
  });
  const editingKey = state.data?.find((/** @type {Json} */ k) => k.keyId === editing);
  const callingKey = state.data?.find((/** @type {Json} */ k) => k.keyId === calling && k.status === 'active');
  return html`<h1>Keys</h1>
    ${can('manageMembers') && members.data && html`<label>Member <select value=${memberId} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => choose(e.currentTarget.value)}>
      ${members.data.map((/** @type {Json} */ m) => html`<option value=${m.memberId}>${m.email} (${m.role})</option>`)}</select></label>`}
    ${mayCreate && html`<form class="inline" onSubmit=${create} aria-label="Create a key">
      <${Field} id="ck-name" label=${memberId === me ? 'New key name' : `New key name (for ${holderName})`} error=${refused.name}
        control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="name" required maxlength="255" value=${keyName} onInput=${(/** @type {On} */ e) => { setKeyName(e.currentTarget.value); if (refused.name) act.clear(); }} ...${a} />`} />
      <button class="primary" type="submit" disabled=${act.busy}>Create key</button></form>`}
    ${created && html`<${NewKey} created=${created} onDone=${() => setCreated(undefined)} />`}
    ${!refused.name && html`<${ErrorBox} error=${act.error} />`}
    <${Loaded} state=${state}>${(/** @type {Json[]} */ rows) => html`<${Table} label="Keys" rows=${rows} columns=${/** @type {Columns} */ ([
      { label: 'Name', cell: (k) => k.name }, { label: 'Key', cell: (k) => html`<code>${k.mask}</code>` }, { label: 'Status', cell: (k) => k.status },
      { label: 'Created', cell: (k) => when(k.createdAt) },
      { label: 'Budget', cell: (k) => (k.status === 'active' ? html`<${BudgetSummary} budget=${k.budget} spent=${k.spent} />` : '—') },
      { label: 'Actions', cell: (k) => html`
        ${(can('readPolicy') || (can('updateKeyBudget') && mayLimit(holder))) && k.status === 'active' && html`<button type="button" onClick=${() => setEditing(k.keyId)}>Edit</button> `}
        ${k.status === 'active' && html`<button type="button" aria-label=${`How to call with ${k.name}`} onClick=${() => setCalling(k.keyId)}>How to call</button> <button type="button" class="danger" onClick=${() => revoke(k)}>Revoke</button>`}` },
    ])} />`}<//>
    ${callingKey && callingKey.keyId !== created?.keyId && html`<${KeySnippets} key=${callingKey.keyId} k=${callingKey} />`}
    ${editingKey && html`<${KeyBudget} key=${`b${editingKey.keyId}`} k=${editingKey} memberId=${memberId} holder=${holder} onSaved=${state.reload} />
      <${Policy} key=${`p${editingKey.keyId}`} k=${editingKey} holder=${holder} />`}`;
}

/**
 * Asks before revoking `k`. The key this console is signed in with ends the session too: said so (issue 32, item 8).
 * @param {Json} k
 */
function askRevoke(k) {
  const own = k.keyId === principal().keyId;
  return confirmDialog(own ? `Revoke ${k.name}, the key you are signed in with?` : `Revoke ${k.name}?`, {
    confirm: 'Revoke key', detail: own ? 'Calls with it stop at once, and this console signs out: sign in again with another key.' : 'Calls with it stop at once.',
  });
}

/**
 * A key just created: its secret, shown this once, and how to call the API with it (the secret in the snippets).
 * @param {{ created: { apiKey: string, keyId: string, name: string, holder: string }, onDone: () => void }} props
 */
function NewKey({ created, onDone }) {
  return html`<div class="notice" role="status">New key ${created.name} for ${created.holder} (shown once, copy it now): <span class="secret" data-testid="new-key">${created.apiKey}</span>
      <button type="button" onClick=${onDone}>Done</button></div>
    <${KeySnippets} key=${created.keyId} k=${{ keyId: created.keyId, name: created.name, mask: '' }} secret=${created.apiKey} />`;
}

/** @param {{ k: Json, memberId: string, holder: { memberId: string, role: string }, onSaved: () => void }} props */
function KeyBudget({ k, memberId, holder, onSaved }) {
  if (!can('updateKeyBudget') || !mayLimit(holder)) return null;
  return html`<h2>Budget of ${k.name}</h2>
    <div class="muted">As saved: <${BudgetSummary} budget=${k.budget} spent=${k.spent} /></div>
    <${BudgetEditor} budget=${k.budget} label="Key budget" idPrefix="kb"
      onSave=${async (/** @type {Record<string, string>} */ body) => { await put('/openapi/v1/user/team/key-budget', { member_id: memberId, key_id: k.keyId, ...body }); onSaved(); }} />`;
}

/** @param {{ k: Json, holder: { memberId: string, role: string } }} props */
function Policy({ k, holder }) {
  const state = useLoad(async () => {
    const [policy, models] = await Promise.all([
      get(`/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/model-access-policy`),
      can('callModels') ? get('/openai/v1/models') : { data: [] },
    ]);
    return { policy, models: models.data };
  });
  if (!can('readPolicy')) return null;
  return html`<h2>Model access of ${k.name}</h2><${Loaded} state=${state}>${(/** @type {{ policy: Json, models: Json[] }} */ d) =>
    html`<${PolicyForm} k=${k} holder=${holder} policy=${d.policy.policy} models=${d.models} onSaved=${state.reload} />`}<//>`;
}

/**
 * The policy's mode and models as chosen in the form (starting from the saved policy, kept
 * when the API refuses).
 * @param {{ k: Json, holder: { memberId: string, role: string }, policy: Json, models: Json[], onSaved: () => void }} props
 */
function PolicyForm({ k, holder, policy: p, models, onSaved }) {
  const act = useAction();
  const [saved, setSaved] = useState(false);
  const [mode, setMode] = useState(/** @type {string} */ (p.mode));
  const [chosen, setChosen] = useState(() => new Set(/** @type {string[]} */ ((p.mode === 'selected' ? p.allowedModels : p.excludedModels).map((/** @type {Json} */ m) => m.id))));
  const write = can('writePolicy') && mayLimit(holder);
  const available = new Set(models.map((m) => m.id));
  const all = [...new Set([...available, ...chosen, ...(p.mode === 'selected' ? p.allowedModels : p.excludedModels).map((/** @type {Json} */ m) => m.id)])].sort();
  /** @param {Submit} e */
  const save = (e) => {
    e.preventDefault();
    setSaved(false);
    // a model no longer callable cannot be chosen (the API refuses it): as unticked
    const list = [...chosen].filter((id) => available.has(id)).map((id) => ({ type: 'llm', id }));
    void act.run(async () => {
      await put(`/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/model-access-policy`,
        { mode, allowedModels: mode === 'selected' ? list : [], excludedModels: mode === 'all_enabled' ? list : [] });
      setSaved(true);
      onSaved();
    });
  };
  /** @param {string} id @param {boolean} on */
  const tick = (id, on) => { setSaved(false); setChosen((s) => { const n = new Set(s); if (on) n.add(id); else n.delete(id); return n; }); };
  return html`<form onSubmit=${save} aria-label="Model access policy">
      <fieldset disabled=${!write}><legend>Mode</legend>
        <label class="check"><input type="radio" name="mode" value="all_enabled" checked=${mode === 'all_enabled'} onChange=${() => { setSaved(false); setMode('all_enabled'); }} /> every enabled model, except those ticked</label>
        <label class="check"><input type="radio" name="mode" value="selected" checked=${mode === 'selected'} onChange=${() => { setSaved(false); setMode('selected'); }} /> only the models ticked</label>
      </fieldset>
      <fieldset disabled=${!write}><legend>Models</legend>
        ${all.map((id) => {
          const reason = available.has(id) ? '' : 'not enabled for the team, unavailable, or outside the signed-in key\'s own policy';
          return html`<label class="check"><input type="checkbox" name="model" value=${id} checked=${chosen.has(id)} disabled=${!!reason}
              onChange=${(/** @type {On} */ e) => tick(id, e.currentTarget.checked)} />
            ${id}${reason && html` <span class="muted">(cannot be chosen: ${reason})</span>`}</label>`;
        })}
      </fieldset>
      ${write ? html`<button class="primary" type="submit" disabled=${act.busy}>Save policy</button>` : html`<p class="muted">Your role may read this policy, not change it.</p>`}
      ${write && p.source?.type === 'private_policy' && html` <button type="button" onClick=${() => void act.run(async () => { setSaved(false); await api('DELETE', `/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/model-access-policy`); onSaved(); })}>Reset to default</button>`}
      ${saved && !act.error && html`<span role="status"> Saved.</span>`}
    </form><${ErrorBox} error=${act.error} />`;
}
