// @ts-check
// The operator's GPU catalogue (issue 45): clusters (retired ones said so; retire after asking:
// what runs there keeps running, nothing new is created there), products, inventory, and the
// official and community templates every team sees, published (created or replaced) and
// retired (instances made from one keep what they copied). Saving a retired cluster again is
// the API's (POST /admin/v1/gpu/clusters); publishing a retired template again puts it back.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { get, post, put } from '../api.js';
import { money } from '../money.js';
import { confirmDialog, ErrorBox, fields, Loaded, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

/**
 * "8888, 7860" as the API's ports of one type; empty: none.
 * @param {string} text
 * @param {string} type
 */
function portsOf(text, type) {
  const ports = text.split(/[\s,]+/).filter(Boolean).map(Number);
  return ports.length ? [{ type, ports }] : [];
}

/** Publish (create or replace) an official or community template. @param {{ t: Json | undefined, onDone: () => void, onCancel: () => void }} props */
function TemplateForm({ t, onDone, onCancel }) {
  const act = useAction();
  const [said, setSaid] = useState('');
  /** @param {Submit} e */
  const publish = (e) => {
    const f = fields(e);
    const id = String(f.id);
    setSaid('');
    void act.run(async () => {
      await put(`/admin/v1/gpu/templates/${encodeURIComponent(id)}`, {
        template: {
          name: f.name, type: 'instance', channel: f.channel, image: f.image, rootfsSize: Number(f.rootfsSize),
          startCommand: f.startCommand ?? '', entrypoint: f.entrypoint ?? '', readme: f.readme ?? '',
          ports: [...portsOf(String(f.httpPorts ?? ''), 'http'), ...portsOf(String(f.tcpPorts ?? ''), 'tcp')],
          ...(t ? { envs: t.envs, minCudaVersion: t.minCudaVersion } : {}),
        },
        ...(t ? { tools: t.tools, recommendCards: t.recommendCards } : {}),
      });
      setSaid(`Published ${id}: every team sees it.`);
      onDone();
    });
  };
  /** @param {string} type */
  const ports = (type) => (t?.ports ?? []).filter((/** @type {Json} */ p) => p.type === type).flatMap((/** @type {Json} */ p) => p.ports).join(', ');
  return html`<form onSubmit=${publish} aria-label=${t ? `Publish ${t.id}` : 'Publish a template'} class="stack">
    <h3>${t ? `Publish ${t.id}` : 'Publish a template'}</h3>
    <label>Template id (tpl_ and a-z 0-9 _)<input name="id" required pattern="tpl_[a-z0-9_]{1,64}" value=${t?.id ?? 'tpl_'} readonly=${!!t} /></label>
    <label>Name<input name="name" required value=${t?.name} /></label>
    <label>Channel<select name="channel" aria-label="Channel" value=${t?.channel ?? 'official'}><option>official</option><option>community</option></select></label>
    <label>Image<input name="image" required value=${t?.image} placeholder="pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime" /></label>
    <label>Root disk (GB)<input name="rootfsSize" inputmode="numeric" pattern="[0-9]+" required value=${t?.rootfsSize ?? 50} /></label>
    <label>Start command (optional)<input name="startCommand" value=${t?.startCommand} /></label>
    <label>Entrypoint (optional)<input name="entrypoint" value=${t?.entrypoint} /></label>
    <label>HTTP ports (comma-separated, optional)<input name="httpPorts" value=${ports('http')} /></label>
    <label>TCP ports (comma-separated, optional)<input name="tcpPorts" value=${ports('tcp')} /></label>
    <label>Readme (Markdown, optional)<textarea name="readme" rows="3">${t?.readme ?? ''}</textarea></label>
    <div class="row"><button class="primary" type="submit" disabled=${act.busy}>Publish template</button> <button type="button" onClick=${onCancel}>Close</button></div>
    ${said && html`<div class="notice" role="status">${said}</div>`}
    <${ErrorBox} error=${act.error} />
  </form>`;
}

/** The GPU catalogue (#/operator/gpu). */
export function OperatorGpu() {
  const state = useLoad(() => get('/admin/v1/gpu/catalogue'));
  const act = useAction();
  const [editing, setEditing] = useState(/** @type {string | null | undefined} */ (undefined)); // null: a new template
  /** @param {Json} c */
  const retireCluster = (c) => void act.run(async () => {
    if (!await confirmDialog(`Retire the cluster ${c.name}?`, { confirm: 'Retire cluster', detail: 'It leaves the tenants\' lists and nothing new is created there; the instances, storages and endpoints there keep running.' })) return;
    await post(`/admin/v1/gpu/clusters/${encodeURIComponent(c.id)}/retire`);
    state.reload();
  });
  /** @param {Json} t */
  const retireTemplate = (t) => void act.run(async () => {
    if (!await confirmDialog(`Retire the template ${t.name}?`, { confirm: 'Retire template', detail: 'It leaves every list and no instance is created from it; instances made from it keep running. Publishing it again puts it back.' })) return;
    await post(`/admin/v1/gpu/templates/${encodeURIComponent(t.id)}/retire`);
    state.reload();
  });
  return html`<${ErrorBox} error=${act.error} /><${Loaded} state=${state}>${(/** @type {Json} */ d) => {
    const templates = /** @type {Json[]} */ (d.templates ?? []);
    const current = editing ? templates.find((t) => t.id === editing) : undefined;
    return html`
    <h2>Clusters</h2><${Table} label="Clusters" rows=${d.clusters} columns=${/** @type {Columns} */ ([
      { label: 'Cluster', cell: (c) => `${c.name} (${c.id})` }, { label: 'Region', cell: (c) => c.region },
      { label: 'Storage / GB-month', num: true, cell: (c) => money(c.storagePrice) },
      { label: 'Status', cell: (c) => (c.retiredAt ? `retired ${when(c.retiredAt)}` : 'active') },
      { label: 'Actions', cell: (c) => (c.retiredAt ? '' : html`<button type="button" class="danger" aria-label=${`Retire cluster ${c.id}`} onClick=${() => retireCluster(c)}>Retire</button>`) },
    ])} />
    <h2>Products</h2><${Table} label="Products" rows=${d.products} columns=${/** @type {Columns} */ ([{ label: 'Product', cell: (p) => `${p.name} (${p.id})` }, { label: 'GPU', cell: (p) => p.gpuModel },
      { label: 'Per GPU-hour', num: true, cell: (p) => money(p.price) }, { label: 'Spot', num: true, cell: (p) => money(p.spotPrice) }, { label: 'Available', cell: (p) => (p.available ? 'yes' : 'no') }])} />
    <h2>Inventory</h2><${Table} label="Inventory" rows=${d.inventory} columns=${/** @type {Columns} */ ([{ label: 'Product', cell: (i) => i.productId }, { label: 'Cluster', cell: (i) => i.clusterId },
      { label: 'GPUs', num: true, cell: (i) => i.total }, { label: 'In use', num: true, cell: (i) => i.used }, { label: 'Free', num: true, cell: (i) => i.free }])} />
    <h2>Templates</h2>
    <p class="muted">Official and community templates: every team sees them. A team's private templates are its own.</p>
    <p><button type="button" class="primary" onClick=${() => setEditing(null)}>Publish a template</button></p>
    ${editing === null && html`<${TemplateForm} key="new" t=${undefined} onDone=${state.reload} onCancel=${() => setEditing(undefined)} />`}
    ${current && html`<${TemplateForm} key=${current.id} t=${current} onDone=${state.reload} onCancel=${() => setEditing(undefined)} />`}
    <${Table} label="Templates" rows=${templates} columns=${/** @type {Columns} */ ([
      { label: 'Template', cell: (t) => html`${t.name}<div class="muted">${t.id}</div>` }, { label: 'Channel', cell: (t) => t.channel },
      { label: 'Image', cell: (t) => html`<code>${t.image}</code>` }, { label: 'Root disk', num: true, cell: (t) => `${t.rootfsSize} GB` },
      { label: 'Status', cell: (t) => (t.retiredAt ? `retired ${when(t.retiredAt)}` : 'published') },
      { label: 'Actions', cell: (t) => html`<div class="row"><button type="button" aria-label=${`Edit template ${t.id}`} onClick=${() => setEditing(t.id)}>${t.retiredAt ? 'Publish again' : 'Edit'}</button>
        ${!t.retiredAt && html`<button type="button" class="danger" aria-label=${`Retire template ${t.id}`} onClick=${() => retireTemplate(t)}>Retire</button>`}</div>` },
    ])} />
    <button type="button" onClick=${state.reload}>Refresh</button>`;
  }}<//>`;
}
