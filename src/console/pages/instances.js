// @ts-check
// Instances and templates: a page of instances with status (server paging, one request per
// view), create from a product or a template, start, stop, restart, delete, cost so far, and
// an instance's log followed live (EventSource).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { can, get, post } from '../api.js';
import { ErrorBox, fields, LiveLog, Loaded, money, Pager, Status, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

export const GPU = '/gpu-instance/openapi/v1';
const PAGE = 20;
const STATUSES = ['', 'running', 'toCreate', 'creating', 'pulling', 'starting', 'stopping', 'exited', 'restarting', 'removing', 'migrating'];
/** Which actions a status allows (the API refuses the others with its message). */
const STEADY = ['running', 'exited', 'removed', 'freezing'];
/** While an instance on the page is between states, the page reads itself again this often. */
const POLL_MS = 2000;
const ACTIONS = { start: ['exited'], stop: ['running', 'starting', 'pulling', 'creating', 'toCreate'], restart: ['running'] };

/** @param {import('../ui.js').PageProps} props */
export function Instances({ args }) {
  if (args?.[0]) return html`<${Instance} id=${args[0]} />`;
  return html`<${InstanceList} />`;
}

function InstanceList() {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState(/** @type {{ name?: string, status?: string }} */ ({ name: '', status: '' }));
  const act = useAction();
  const state = useLoad(() => get(`${GPU}/gpu/instances`, { pageSize: PAGE, pageNum: page, ...filter }), [page, filter.name, filter.status]);
  const change = can('changeCompute');
  const moving = state.data?.instances.some((/** @type {Json} */ i) => !STEADY.includes(i.status));
  useEffect(() => {
    if (!moving || state.loading) return undefined;
    const t = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [moving, state.loading, state.data]);
  /** @type {(verb: string, i: Json) => void} */
  const action = (verb, i) => void act.run(async () => {
    if (verb === 'delete' && !confirm(`Delete ${i.name || i.id}? Its disk goes with it.`)) return;
    await post(`${GPU}/gpu/instance/${verb}`, { instanceId: i.id });
    state.reload();
  });
  return html`<h1>Instances</h1>
    ${change && html`<${CreateInstance} onCreated=${state.reload} />`}
    <form class="inline" aria-label="Filter instances" onSubmit=${(/** @type {Submit} */ e) => { const f = fields(e); setPage(1); setFilter({ name: f.name, status: f.status }); }}>
      <label>Name<input name="name" value=${filter.name} /></label>
      <label>Status<select name="status" value=${filter.status}>${STATUSES.map((s) => html`<option value=${s}>${s || 'any'}</option>`)}</select></label>
      <button type="submit">Filter</button>
      <button type="button" onClick=${state.reload}>Refresh</button>
    </form>
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Instances" rows=${d.instances} empty="No instances." columns=${/** @type {Columns} */ ([
        { label: 'Name', cell: (i) => html`<a href=${`#/instances/${i.id}`}>${i.name || i.id}</a>` },
        { label: 'Product', cell: (i) => `${i.productName} × ${i.gpuNum}` },
        { label: 'Status', cell: (i) => html`<${Status} value=${i.status} />${i.statusError?.message ? html`<div class="muted">${i.statusError.message}</div>` : ''}` },
        { label: 'Billing', cell: (i) => i.billingMode },
        { label: 'Created', cell: (i) => when(i.createdAt) },
        ...(change ? [{ label: 'Actions', cell: (/** @type {Json} */ i) => html`
          ${ACTIONS.start.includes(i.status) && html`<button type="button" onClick=${() => action('start', i)}>Start</button> `}
          ${ACTIONS.stop.includes(i.status) && html`<button type="button" onClick=${() => action('stop', i)}>Stop</button> `}
          ${ACTIONS.restart.includes(i.status) && html`<button type="button" onClick=${() => action('restart', i)}>Restart</button> `}
          <button type="button" class="danger" onClick=${() => action('delete', i)}>Delete</button>` }] : []),
      ])} />
      <${Pager} page=${page} pageSize=${PAGE} total=${d.total} onPage=${setPage} />`}<//>`;
}

/** @param {{ onCreated: () => void }} props */
function CreateInstance({ onCreated }) {
  const act = useAction();
  const [open, setOpen] = useState(false);
  const choices = useLoad(async () => {
    if (!open) return undefined;
    const [products, templates] = await Promise.all([get(`${GPU}/products`), get(`${GPU}/templates`, { channel: 'private', isMyCommunity: 'true', pageSize: 100, pageNum: 1 })]);
    return { products: products.data, templates: templates.template ?? [] };
  }, [open]);
  if (!open) return html`<p><button type="button" class="primary" onClick=${() => setOpen(true)}>Create an instance</button></p>`;
  /** @param {Submit} e */
  const create = (e) => {
    const f = fields(e);
    /** @type {Record<string, unknown>} */
    const body = { name: f.name, productId: f.productId, gpuNum: Number(f.gpuNum), kind: 'gpu', billingMode: 'onDemand' };
    if (f.templateId) body.templateId = f.templateId;
    else { body.imageUrl = f.imageUrl; body.rootfsSize = Number(f.rootfsSize); if (f.ports) body.ports = f.ports; }
    void act.run(async () => { await post(`${GPU}/gpu/instance/create`, body); setOpen(false); onCreated(); });
  };
  return html`<${Loaded} state=${choices}>${(/** @type {Json} */ c) => c && html`<form class="inline" onSubmit=${create} aria-label="Create an instance">
      <label>Instance name<input name="name" maxlength="255" /></label>
      <label>Product<select name="productId" required>${c.products.map((/** @type {Json} */ p) => html`<option value=${p.id} disabled=${!p.availableDeploy}>${p.name} — ${money(p.price)}/GPU-hour${p.availableDeploy ? '' : ' (none free)'}</option>`)}</select></label>
      <label>GPUs<input name="gpuNum" type="number" min="1" max="8" value="1" required /></label>
      <label>Template<select name="templateId"><option value="">none: an image</option>${c.templates.map((/** @type {Json} */ t) => html`<option value=${t.Id}>${t.name}</option>`)}</select></label>
      <label>Image<input name="imageUrl" value="nginx:latest" /></label>
      <label>Root disk (GB)<input name="rootfsSize" type="number" min="1" value="50" /></label>
      <label>Ports<input name="ports" placeholder="80/http" /></label>
      <button class="primary" type="submit" disabled=${act.busy}>Create</button>
      <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
    </form><${ErrorBox} error=${act.error} />`}<//>`;
}

/** @param {{ id: string }} props */
function Instance({ id }) {
  const state = useLoad(async () => {
    const i = await get(`${GPU}/gpu/instance`, { instanceId: id });
    const now = Math.floor(Date.now() / 1000);
    // cost so far: its usage bills (the API answers at most 31 days at a time)
    const bills = can('readBilling')
      ? await get('/openapi/v1/billing/bill/list', { cycleType: 'Month', productCategory: 'summary', ownerId: id, startTime: Math.max(Number(i.createdAt), now - 31 * 86400), endTime: now }) : undefined;
    return { i, cost: bills?.bills.reduce((/** @type {bigint} */ a, /** @type {Json} */ b) => a + BigInt(b.amount), 0n) };
  }, [id]);
  return html`<p><a href="#/instances">← Instances</a></p><${Loaded} state=${state}>${(/** @type {{ i: Json, cost: bigint | undefined }} */ { i, cost }) => html`
    <h1>${i.name || i.id}</h1>
    <div class="cards">
      <div class="card"><div class="label">Status</div><div class="value"><${Status} value=${i.status} /></div></div>
      <div class="card"><div class="label">Product</div><div class="value">${i.productName} × ${i.gpuNum}</div></div>
      ${cost !== undefined && html`<div class="card"><div class="label">Cost so far (last 31 days)</div><div class="value">${money(cost)}</div></div>`}
    </div>
    <h2>Details</h2>
    <${Table} label="Instance details" rows=${[['Id', i.id], ['Image', i.imageUrl], ['Cluster', i.clusterName || i.clusterId], ['Billing', i.billingMode], ['Created', when(i.createdAt)],
      ['Ports', i.network.ports.map((/** @type {Json} */ p) => p.endpoint ? `${p.port}/${p.type} → ${p.endpoint}` : `${p.port}/${p.type}`).join(', ') || '—'], ['Error', i.statusError?.message || '—']]}
      columns=${/** @type {Columns} */ ([{ label: 'Field', cell: (r) => r[0] }, { label: 'Value', cell: (r) => r[1] }])} />
    <button type="button" onClick=${state.reload}>Refresh</button>
    <${TerminalSection} id=${id} available=${!!i.connectComponentWebTerminal?.url} />
    <h2>Log</h2>
    <p class="muted">Status changes (<code>[gantry]</code> lines) and the workload's output, followed live.</p>
    <${LiveLog} key=${id} url=${`${GPU}/gpu/instance/log?${new URLSearchParams({ instanceId: id, follow: '1', sse: '1', timestamps: '1', tail: '200' })}`} />`}<//>`;
}

/**
 * A shell in the running instance (docker driver), for roles that may operate instances: the
 * terminal's module (and xterm) is loaded when it is opened, with a new URL read at that time
 * (its ticket is used once and good for minutes).
 * @param {{ id: string, available: boolean }} props
 */
function TerminalSection({ id, available }) {
  const [open, setOpen] = useState(/** @type {{ url: string, Panel: any } | undefined} */ (undefined));
  const act = useAction();
  if (!available) return null; // not running, a driver without terminals, or a role that may not operate instances
  const start = () => void act.run(async () => {
    const [i, m] = await Promise.all([get(`${GPU}/gpu/instance`, { instanceId: id }), import('../terminal.js')]);
    if (!i.connectComponentWebTerminal?.url) throw new Error('the instance has no terminal now (it must be running)');
    setOpen({ url: i.connectComponentWebTerminal.url, Panel: m.InstanceTerminal });
  });
  return html`<h2>Terminal</h2>
    ${open ? html`<${open.Panel} url=${open.url} onClose=${() => setOpen(undefined)} />`
      : html`<p><button type="button" class="primary" onClick=${start} disabled=${act.busy}>Open terminal</button> <span class="muted">a shell inside the running instance</span></p>`}
    <${ErrorBox} error=${act.error} />`;
}
