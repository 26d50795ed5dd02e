// @ts-check
// Controls the instance and endpoint create forms share: environment variables as rows (add,
// remove, each name and value checked at its control; envs.js holds the rules) and the choice
// of one of the team's network storages with where it is mounted (a storage pins the workload
// to its cluster: one in a cluster without the chosen product is shown, disabled, with why).
import { html } from 'htm/preact';
import { get } from './api.js';
import { Field } from './ui.js';

/** @typedef {import('./envs.js').EnvRow} EnvRow */
/** @typedef {any} Json */

const GPU = '/gpu-instance/openapi/v1';

/**
 * The team's network storages, and which products each of their clusters stocks (one query
 * of /products per cluster: a storage is usable only where the product runs).
 * @returns {Promise<{ storages: Json[], productsIn: Map<string, Set<string>> }>}
 */
export async function loadStorages() {
  const storages = /** @type {Json[]} */ ((await get(`${GPU}/networkstorages/list`, { pageNo: 1, pageSize: 100 })).data);
  const clusters = [...new Set(storages.map((s) => /** @type {string} */ (s.clusterId)))];
  const stocked = await Promise.all(clusters.map((c) => get(`${GPU}/products`, { clusterId: c })));
  return { storages, productsIn: new Map(clusters.map((c, i) => [c, new Set(stocked[i].data.map((/** @type {Json} */ p) => p.id))])) };
}

/**
 * Environment variables as rows: a name and a value each, Remove on each, and Add.
 * `errors` holds `envs` (their number) and `envs.<row>.key` / `envs.<row>.value`.
 * @param {{ id: string, rows: EnvRow[], onChange: (rows: EnvRow[], changed: string) => void, errors: Record<string, string> }} props
 */
export function EnvEditor({ id, rows, onChange, errors }) {
  /** @param {number} i @param {'key' | 'value'} k */
  const set = (i, k) => (/** @type {Event & { currentTarget: HTMLInputElement }} */ e) => {
    const value = e.currentTarget.value;
    onChange(rows.map((r, j) => (j === i ? { ...r, [k]: value } : r)), `envs.${i}.${k}`);
  };
  /** @param {number} i @param {'key' | 'value'} k @param {string} label */
  const input = (i, k, label) => html`<${Field} id=${`${id}-${i}-${k}`} label=${label} error=${errors[`envs.${i}.${k}`]}
    control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input value=${rows[i]?.[k] ?? ''} onInput=${set(i, k)} spellcheck="false" ...${a} />`} />`;
  return html`<fieldset class="env-rows" aria-describedby=${errors.envs ? `${id}-error` : undefined}>
    <legend>Environment variables</legend>
    ${rows.map((_, i) => html`<div class="env-row">
      ${input(i, 'key', `Variable ${i + 1} name`)}
      ${input(i, 'value', `Variable ${i + 1} value`)}
      <button type="button" aria-label=${`Remove variable ${i + 1}`} onClick=${() => onChange(rows.filter((__, j) => j !== i), 'envs')}>Remove</button>
    </div>`)}
    ${errors.envs && html`<span class="field-error" id=${`${id}-error`} role="alert">${errors.envs}</span>`}
    <button type="button" onClick=${() => onChange([...rows, { key: '', value: '' }], 'envs')}>Add a variable</button>
    ${!rows.length && html` <span class="hint">none</span>`}
  </fieldset>`;
}

/**
 * One of the team's network storages, or none, and its mount path. A storage in a cluster
 * that does not stock `productId` is disabled, saying so.
 * `runs` names what is pinned to the storage's cluster ("the instance runs").
 * @param {{ id: string, runs: string, storages: Json[], productsIn: Map<string, Set<string>>, productId: string | undefined, value: string, mountPath: string,
 *   onStorage: (id: string) => void, onMountPath: (path: string) => void, errors: { storage?: string, mountPath?: string } }} props
 */
export function StorageField({ id, runs, storages, productsIn, productId, value, mountPath, onStorage, onMountPath, errors }) {
  const usable = (/** @type {Json} */ s) => !productId || !!productsIn.get(s.clusterId)?.has(productId);
  const hint = storages.length ? `${runs} in the storage's cluster` : 'the team has none (create one with the API)';
  return html`
    <${Field} id=${`${id}-storage`} label="Network storage" error=${errors.storage} hint=${hint} control=${(/** @type {Record<string, string | undefined>} */ a) => html`
      <select value=${value} onChange=${(/** @type {Event & { currentTarget: HTMLSelectElement }} */ e) => onStorage(e.currentTarget.value)} ...${a}>
        <option value="">none</option>
        ${storages.map((s) => html`<option value=${s.storageId} disabled=${!usable(s)}>${s.storageName} — ${s.storageSize} GB in ${s.clusterName || s.clusterId}${usable(s) ? '' : ' (not with this product)'}</option>`)}
      </select>`} />
    ${value && html`<${Field} id=${`${id}-mount`} label="Mount path" error=${errors.mountPath} control=${(/** @type {Record<string, string | undefined>} */ a) => html`
      <input value=${mountPath} maxlength="255" onInput=${(/** @type {Event & { currentTarget: HTMLInputElement }} */ e) => onMountPath(e.currentTarget.value)} ...${a} />`} />`}`;
}
