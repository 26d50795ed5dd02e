// @ts-check
// SSH keys: the public keys members registered to SSH into the team's instances (issue 42).
// Owner/Admin see every member's (the API lists one member's at a time), others their own;
// register one (paste the public key line, a name) with the API's refusal shown at its field;
// remove one after asking (its open SSH sessions close). Basic and Billing may not register:
// SSH reaches the instances, which their roles may not operate, and the page says so.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can, get, post, principal } from '../api.js';
import { confirmDialog, ErrorBox, Field, Loaded, refusalAt, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */

/** The members whose keys are listed: every member for those who manage members, else oneself. */
async function holders() {
  if (!can('manageMembers')) return [{ ...principal(), email: 'you' }];
  return (await get('/openapi/v1/user/team/members')).members;
}

/** Every listed member's keys, each with its member, newest first. */
async function loadKeys() {
  const members = await holders();
  const lists = await Promise.all(members.map(async (/** @type {Json} */ m) =>
    (await get('/openapi/v1/user/ssh-keys', { member_id: m.memberId })).sshKeys.map((/** @type {Json} */ k) => ({ ...k, holder: m }))));
  return lists.flat().sort((a, b) => Number(b.createdAt) - Number(a.createdAt));
}

/**
 * Whether the signed-in member may remove `k`: its own, or (Owner/Admin) any member's but an
 * Owner's, which only an Owner removes (the API's rule, domain/keys/ssh-keys.ts).
 * @param {Json} k
 */
function mayRemove(k) {
  const me = principal();
  if (k.memberId === me.memberId) return true;
  return can('manageMembers') && (k.holder.role !== 'Owner' || me.role === 'Owner');
}

export function SshKeys() {
  const state = useLoad(async () => (can('manageOwnKeys') ? loadKeys() : []));
  const act = useAction();
  /** @param {Json} k */
  const remove = (k) => void act.run(async () => {
    const own = k.memberId === principal().memberId;
    if (!await confirmDialog(`Remove SSH key ${k.name}${own ? '' : ` of ${k.holder.email}`}?`, {
      confirm: 'Remove key', detail: 'SSH sessions opened with it close, and it no longer signs in.',
    })) return;
    await api('DELETE', `/openapi/v1/user/ssh-keys/${encodeURIComponent(k.sshKeyId)}`);
    state.reload();
  });
  const all = can('manageMembers');
  return html`<h1>SSH keys</h1>
    <p class="muted">A key registered here signs its member in to the team's running instances over SSH (each instance's page shows the command).
      ${all ? ' Every member\'s keys are listed.' : ''}</p>
    ${can('changeCompute') ? html`<${AddKey} onAdded=${state.reload} />`
      : html`<p class="notice" role="note" data-testid="may-not-register">Your role (${principal().role}) may not register SSH keys: SSH reaches the team's instances, which only Owner, Admin and Developer may operate.</p>`}
    ${can('manageOwnKeys') && html`<h2>${all ? 'The team\'s keys' : 'Your keys'}</h2>
      <${ErrorBox} error=${act.error} />
      <${Loaded} state=${state}>${(/** @type {Json[]} */ rows) => html`<${Table} label="SSH keys" rows=${rows} empty="No SSH keys registered yet." columns=${/** @type {Columns} */ ([
        { label: 'Name', cell: (k) => k.name },
        { label: 'Type', cell: (k) => k.keyType },
        { label: 'Fingerprint', cell: (k) => html`<code class="fingerprint">${k.fingerprint}</code>` },
        { label: 'Created', cell: (k) => when(k.createdAt) },
        { label: 'Member', cell: (k) => (k.memberId === principal().memberId ? 'you' : `${k.holder.email} (${k.holder.role})`) },
        { label: 'Actions', cell: (k) => mayRemove(k) && html`<button type="button" class="danger" aria-label=${`Remove ${k.name}`} onClick=${() => remove(k)}>Remove</button>` },
      ])} />`}<//>`}`;
}

/**
 * Register a key for oneself: the public key line as pasted, and a name (the API defaults it to
 * the key's comment). What was typed is kept when the API refuses it, the refusal at its field.
 * @param {{ onAdded: () => void }} props
 */
function AddKey({ onAdded }) {
  const act = useAction();
  const [publicKey, setPublicKey] = useState('');
  const [name, setName] = useState('');
  const [added, setAdded] = useState(/** @type {Json | undefined} */ (undefined));
  const refused = refusalAt(act.error, { publicKey: 'publicKey', name: 'name' });
  // a conflict's rule states the policy; its message names the key (by its fingerprint)
  if (refused.publicKey && act.error?.status === 409) refused.publicKey = act.error.message;
  const at = refused.publicKey || refused.name;
  /** @param {Submit} e */
  const submit = (e) => {
    e.preventDefault();
    setAdded(undefined);
    void act.run(async () => {
      const k = await post('/openapi/v1/user/ssh-keys', name.trim() ? { publicKey: publicKey.trim(), name: name.trim() } : { publicKey: publicKey.trim() });
      setAdded(k);
      setPublicKey('');
      setName('');
      onAdded();
    });
  };
  /** @param {(v: string) => void} set */
  const typed = (set) => (/** @type {On<HTMLInputElement | HTMLTextAreaElement>} */ e) => { set(e.currentTarget.value); setAdded(undefined); if (at) act.clear(); };
  return html`<form onSubmit=${submit} aria-label="Add an SSH key">
      <h2>Add a key</h2>
      <${Field} id="ssh-public-key" label="Public key" error=${refused.publicKey}
        hint=${html`the line of your <code>~/.ssh/id_ed25519.pub</code> (ed25519, ECDSA, or RSA of at least 2048 bits)`}
        control=${(/** @type {Record<string, string | undefined>} */ a) => html`<textarea name="publicKey" required rows="3" maxlength="16384" spellcheck="false"
          placeholder="ssh-ed25519 AAAA… you@laptop" value=${publicKey} onInput=${typed(setPublicKey)} ...${a}></textarea>`} />
      <${Field} id="ssh-name" label="Name (optional)" error=${refused.name} hint="default: the key's comment"
        control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name="name" maxlength="255" value=${name} onInput=${typed(setName)} ...${a} />`} />
      <button class="primary" type="submit" disabled=${act.busy}>Add key</button>
      ${added && html`<p role="status">Added ${added.name} (${added.fingerprint}).</p>`}
    </form>
    ${!at && html`<${ErrorBox} error=${act.error} />`}`;
}
