// @ts-check
// Instances and templates: a page of instances with status (server paging, one request per
// view; removed ones hidden unless asked for), create from a product or a template (a form
// that keeps what was typed when the API refuses it, the refusal shown at its field), and an
// instance's page: start, stop, restart, delete, its ports as links, its SSH command and host
// key when Gantry serves SSH, cost so far, the web terminal, its GPU metrics (instance-metrics.js, loaded with that page) and its log
// followed live (EventSource).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { can, get, post } from '../api.js';
import { CopyButton, ErrorBox, LiveLog, Loaded, Money, Pager, Table, useAction, useLoad, when } from '../ui.js';
import { money, usd } from '../money.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */

export const GPU = '/gpu-instance/openapi/v1';
const PAGE = 20;
/** Every status of an instance, in the order of its life (src/domain/compute/states.ts INSTANCE_STATUSES; the browser test checks the two agree). */
export const INSTANCE_STATUSES = [
  'toCreate', 'creating', 'pulling', 'running', 'toStart', 'starting', 'toStop', 'stopping', 'exited',
  'toRestart', 'restarting', 'toRemove', 'removing', 'removed', 'toReset', 'resetting', 'migrating', 'freezing',
];
/** What some statuses mean, beside their name in the filter. */
const STATUS_HINTS = /** @type {Record<string, string>} */ ({ exited: 'exited (stopped or failed)', freezing: 'freezing (stopped by a limit)' });
/** The reasons a driver gives for a workload that failed (src/drivers/types.ts FAILURE_REASONS): an exited instance with one of them failed. */
const FAILURE_REASONS = ['image_pull_failed', 'insufficient_resource', 'crashed', 'disk_limit_exceeded', 'unknown'];
/** Statuses an instance rests in; in any other it is moving and its page reads itself again. */
const STEADY = ['running', 'exited', 'removed', 'freezing'];
/** While an instance shown is between states, the page reads it again this often. */
const POLL_MS = 2000;
/** Which statuses each action may start from (states.ts TRANSITIONS; the API refuses the others with its message). */
const ACTIONS = {
  start: ['exited'],
  stop: ['toCreate', 'creating', 'pulling', 'running', 'toStart', 'starting', 'toRestart', 'restarting', 'toReset', 'resetting'],
  restart: ['running'],
  delete: INSTANCE_STATUSES.filter((s) => !['toRemove', 'removing', 'removed'].includes(s)),
};

/** @param {import('../ui.js').PageProps} props */
export function Instances({ args }) {
  if (args?.[0]) return html`<${Instance} id=${args[0]} />`;
  return html`<${InstanceList} />`;
}

/**
 * How an instance's status reads: its tone (colour) and the word shown. An exited instance
 * whose driver reported a failure is "failed" (red, with its reason); exited and removed
 * ones are grey; running green; the states between, plain.
 * @param {Json} i
 * @returns {{ tone: 'failed' | 'stopped' | 'running' | 'moving', word: string }}
 */
export function statusLook(i) {
  if (i.status === 'exited' && FAILURE_REASONS.includes(i.statusError?.state)) return { tone: 'failed', word: 'failed' };
  if (i.status === 'running') return { tone: 'running', word: 'running' };
  if (i.status === 'exited' || i.status === 'removed') return { tone: 'stopped', word: i.status };
  return { tone: 'moving', word: i.status };
}

/**
 * The status word in its colour, and the reason the instance stopped or failed below it (unless `reason` is false).
 * @param {{ i: Json, reason?: boolean }} props
 */
function InstanceStatus({ i, reason: withReason = true }) {
  const { tone, word } = statusLook(i);
  const reason = withReason && i.statusError?.message;
  return html`<span class=${`status tone-${tone}`} title=${`status: ${i.status}${i.statusError?.state ? ` (${i.statusError.state})` : ''}`}>${word}</span>${
    reason ? html`<div class=${tone === 'failed' ? 'reason bad' : 'reason muted'}>${reason}</div>` : ''}`;
}

/**
 * Start, Stop, Restart and Delete, as the instance's status allows (delete asks first). Errors
 * go to `act`'s box.
 * @param {{ i: Json, act: ReturnType<typeof useAction>, onDone: () => void }} props
 */
function Actions({ i, act, onDone }) {
  /** @param {'start' | 'stop' | 'restart' | 'delete'} verb */
  const run = (verb) => void act.run(async () => {
    if (verb === 'delete' && !confirm(`Delete ${i.name || i.id}? Its disk goes with it.`)) return;
    await post(`${GPU}/gpu/instance/${verb}`, { instanceId: i.id });
    onDone();
  });
  /** @type {['start' | 'stop' | 'restart' | 'delete', string][]} */
  const verbs = [['start', 'Start'], ['stop', 'Stop'], ['restart', 'Restart'], ['delete', 'Delete']];
  return html`${verbs.filter(([v]) => ACTIONS[v].includes(i.status)).map(([v, label]) => html`<button type="button" class=${v === 'delete' ? 'danger' : ''}
    disabled=${act.busy} onClick=${() => run(v)}>${label}</button> `)}`;
}

/** Reads `reload` again every POLL_MS while `moving` (and not already loading). */
function usePoll(/** @type {boolean} */ moving, /** @type {{ loading: boolean, data: unknown, reload: () => void }} */ state) {
  useEffect(() => {
    if (!moving || state.loading) return undefined;
    const t = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [moving, state.loading, state.data]);
}

function InstanceList() {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState({ name: '', status: '' });
  // what is typed in the filter until it is applied (a page read again keeps it)
  const [draft, setDraft] = useState(filter);
  const [showRemoved, setShowRemoved] = useState(false);
  const [created, setCreated] = useState(/** @type {{ id: string, name: string } | undefined} */ (undefined));
  const act = useAction();
  const state = useLoad(() => get(`${GPU}/gpu/instances`, { pageSize: PAGE, pageNum: page, ...filter }), [page, filter.name, filter.status]);
  const costs = useCostsSoFar('gpu', state.data);
  const change = can('changeCompute');
  usePoll(!!state.data?.instances.some((/** @type {Json} */ i) => !STEADY.includes(i.status)), state);
  // asking for removed ones by status shows them
  const removedShown = showRemoved || filter.status === 'removed';
  return html`<h1>Instances</h1>
    ${change && html`<${CreateInstance} onOpen=${() => setCreated(undefined)} onCreated=${(/** @type {{ id: string, name: string }} */ c) => { setCreated(c); state.reload(); }} />`}
    ${created && html`<p class="notice" role="status">Instance <a href=${`#/instances/${created.id}`}>${created.name || created.id}</a> created: it is being started.</p>`}
    <form class="inline" aria-label="Filter instances" onSubmit=${(/** @type {Submit} */ e) => { e.preventDefault(); setPage(1); setFilter(draft); }}>
      <label>Name<input name="name" value=${draft.name} onInput=${(/** @type {On} */ e) => setDraft({ ...draft, name: e.currentTarget.value })} /></label>
      <label>Status<select name="status" value=${draft.status} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => { const status = e.currentTarget.value; setDraft({ ...draft, status }); setPage(1); setFilter({ ...draft, status }); }}>
        <option value="">any</option>${INSTANCE_STATUSES.map((s) => html`<option value=${s}>${STATUS_HINTS[s] ?? s}</option>`)}</select></label>
      <button type="submit">Filter</button>
      <button type="button" onClick=${state.reload}>Refresh</button>
      <label class="check"><input type="checkbox" checked=${showRemoved} onChange=${(/** @type {On} */ e) => setShowRemoved(e.currentTarget.checked)} /> Show removed</label>
    </form>
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => {
      const rows = removedShown ? d.instances : d.instances.filter((/** @type {Json} */ i) => i.status !== 'removed');
      const hidden = d.instances.length - rows.length;
      return html`
      <${Table} label="Instances" rows=${rows} empty=${hidden ? 'No instances on this page but removed ones.' : 'No instances.'}
        rowClass=${(/** @type {Json} */ i) => `tone-${statusLook(i).tone}`} columns=${/** @type {Columns} */ ([
        { label: 'Name', cell: (i) => html`<a href=${`#/instances/${i.id}`}>${i.name || i.id}</a>` },
        { label: 'Product', cell: (i) => `${i.productName} × ${i.gpuNum}` },
        { label: 'Status', cell: (i) => html`<${InstanceStatus} i=${i} />` },
        { label: 'Billing', cell: (i) => i.billingMode },
        ...(costs ? [{ label: 'Cost so far', num: true, cell: (/** @type {Json} */ i) => html`<${Money} units=${costs.get(i.id) ?? 0n} />` }] : []),
        { label: 'Created', cell: (i) => when(i.createdAt) },
        ...(change ? [{ label: 'Actions', cell: (/** @type {Json} */ i) => html`<${Actions} i=${i} act=${act} onDone=${state.reload} />` }] : []),
      ])} />
      ${hidden > 0 && html`<p class="muted">${hidden === 1 ? '1 removed instance' : `${hidden} removed instances`} on this page hidden: tick "Show removed" to see ${hidden === 1 ? 'it' : 'them'}.</p>`}
      <${Pager} page=${page} pageSize=${PAGE} total=${d.total} onPage=${setPage} />`;
    }}<//>`;
}

/** The create form's fields, as typed (text: the form keeps exactly what was typed). */
const BLANK = { name: '', productId: '', gpuNum: '1', templateId: '', imageUrl: 'nginx:latest', rootfsSize: /** @type {string | null} */ (null), ports: '' };
/** @typedef {typeof BLANK} CreateFields */
/** The fields the API may name in a refusal (metadata.field), shown at the field. */
const FIELD_IDS = /** @type {(keyof CreateFields)[]} */ (Object.keys(BLANK));

/** @param {{ onOpen: () => void, onCreated: (c: { id: string, name: string }) => void }} props */
function CreateInstance({ onOpen, onCreated }) {
  const act = useAction();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(BLANK);
  const choices = useLoad(async () => {
    if (!open) return undefined;
    const [products, templates] = await Promise.all([get(`${GPU}/products`), get(`${GPU}/templates`, { channel: 'private', isMyCommunity: 'true', pageSize: 100, pageNum: 1 })]);
    return { products: products.data, templates: templates.template ?? [] };
  }, [open]);
  if (!open) return html`<p><button type="button" class="primary" onClick=${() => { onOpen(); setOpen(true); }}>Create an instance</button></p>`;
  const close = () => { setOpen(false); setForm(BLANK); act.clear(); };
  // the refusal's field, when it is one of the form's; any other refusal shows above the buttons
  const refused = /** @type {{ field?: string, rule?: string } & import('../ui.js').Shown | undefined} */ (act.error);
  const at = refused?.field && /** @type {string[]} */ (FIELD_IDS).includes(refused.field) ? refused.field : undefined;
  /** @param {keyof CreateFields} k */
  const set = (k) => (/** @type {On<HTMLInputElement | HTMLSelectElement>} */ e) => {
    const value = e.currentTarget.value;
    setForm((f) => ({ ...f, [k]: value }));
    if (at === k) act.clear(); // the field is being corrected
  };
  return html`<${Loaded} state=${choices}>${(/** @type {Json} */ c) => {
    if (!c) return null;
    const products = /** @type {Json[]} */ (c.products);
    const product = products.find((p) => p.id === form.productId) ?? products.find((p) => p.availableDeploy) ?? products[0];
    // until it is typed in, the disk is 50 GB within the product's range
    const disk = form.rootfsSize !== null ? form.rootfsSize
      : product ? String(Math.min(Math.max(50, product.minRootFS), product.maxRootFS)) : '50';
    const fromTemplate = form.templateId !== '';
    /** @param {Submit} e */
    const create = (e) => {
      e.preventDefault();
      /** @type {Record<string, unknown>} */
      const body = { name: form.name, productId: product?.id ?? '', gpuNum: Number(form.gpuNum), kind: 'gpu', billingMode: 'onDemand' };
      if (fromTemplate) body.templateId = form.templateId;
      else { body.imageUrl = form.imageUrl; body.rootfsSize = Number(disk); if (form.ports) body.ports = form.ports; }
      void act.run(async () => {
        const r = await post(`${GPU}/gpu/instance/create`, body);
        close();
        onCreated({ id: r.id, name: form.name });
      });
    };
    /**
     * A field: its label and control, a hint, and the API's refusal when it names this field
     * (the control is marked invalid and described by both).
     * @param {keyof CreateFields} k
     * @param {string} label
     * @param {(attrs: Record<string, string | undefined>) => unknown} control
     * @param {string} [hint]
     */
    const field = (k, label, control, hint) => {
      const err = at === k ? refused?.rule || refused?.message : undefined;
      const described = [hint && `ci-${k}-hint`, err && `ci-${k}-error`].filter(Boolean).join(' ');
      return html`<div class="field">
        <label>${label}${control({ 'aria-invalid': err ? 'true' : undefined, 'aria-describedby': described || undefined })}</label>
        ${hint && html`<span class="hint" id=${`ci-${k}-hint`}>${hint}</span>`}
        ${err && html`<span class="field-error" id=${`ci-${k}-error`} role="alert">${err}</span>`}
      </div>`;
    };
    return html`<form class="grid" onSubmit=${create} aria-label="Create an instance">
      ${field('name', 'Instance name', (a) => html`<input name="name" maxlength="255" value=${form.name} onInput=${set('name')} ...${a} />`)}
      ${field('productId', 'Product', (a) => html`<select name="productId" required value=${product?.id ?? ''} onChange=${set('productId')} ...${a}>${products.map((p) => html`<option value=${p.id} disabled=${!p.availableDeploy}>${p.name} — ${money(p.price)}/GPU-hour${p.availableDeploy ? '' : ' (none free)'}</option>`)}</select>`)}
      ${field('gpuNum', 'GPUs', (a) => html`<input name="gpuNum" type="number" min="1" max="8" required value=${form.gpuNum} onInput=${set('gpuNum')} ...${a} />`)}
      ${field('templateId', 'Template', (a) => html`<select name="templateId" value=${form.templateId} onChange=${set('templateId')} ...${a}><option value="">none: an image</option>${c.templates.map((/** @type {Json} */ t) => html`<option value=${t.Id}>${t.name}</option>`)}</select>`)}
      ${field('imageUrl', 'Image', (a) => html`<input name="imageUrl" value=${form.imageUrl} disabled=${fromTemplate} onInput=${set('imageUrl')} ...${a} />`, fromTemplate ? 'from the template' : undefined)}
      ${field('rootfsSize', 'Root disk (GB)', (a) => html`<input name="rootfsSize" type="number" min="1" value=${disk} disabled=${fromTemplate} onInput=${set('rootfsSize')} ...${a} />`,
        fromTemplate ? 'from the template' : product ? `${product.minRootFS}–${product.maxRootFS} GB for ${product.name}` : undefined)}
      ${field('ports', 'Ports', (a) => html`<input name="ports" placeholder="80/http,22/tcp" value=${form.ports} disabled=${fromTemplate} onInput=${set('ports')} ...${a} />`)}
      <${CostPreview} price=${product?.price} gpus=${form.gpuNum} what="this instance" />
      <div class="buttons">
        <button class="primary" type="submit" disabled=${act.busy}>Create</button>
        <button type="button" onClick=${close}>Cancel</button>
      </div>
    </form>${!at && html`<${ErrorBox} error=${act.error} />`}`;
  }}<//>`;
}

/**
 * An instance's ports: an http port's endpoint as a link (http://host:port), a tcp port's as
 * text to connect to; none while the instance does not run.
 * @param {{ ports: Json[] }} props
 */
function Ports({ ports }) {
  if (!ports.length) return html`<p class="muted">No ports exposed.</p>`;
  // `address`: through Gantry's proxy, signed in by the link's one-time ticket (read again on each load); `endpoint`: the direct address
  return html`<ul class="ports" aria-label="Ports">${ports.map((p) => html`<li>
    <span class="muted">${p.port}/${p.type}</span> ${!p.endpoint ? html`<span class="muted">— reachable while the instance runs</span>`
      : p.type === 'http' ? html`${p.address && html`<a href=${p.address} target="_blank" rel="noopener noreferrer" data-testid=${`open-port-${p.port}`}>Open</a> `}<span class="muted">direct:</span> <a href=${`http://${p.endpoint}`} target="_blank" rel="noopener noreferrer">${`http://${p.endpoint}`}</a>`
        : html`<code>${p.endpoint}</code>`}
  </li>`)}</ul>`;
}

/**
 * SSH into the instance: the command that works (`connectComponentSSH.sshCommand`, '' while
 * the instance does not run or Gantry runs no SSH endpoint) with a copy button, and the host
 * key's fingerprint to check on the first connect. Nothing when neither is given.
 * @param {{ ssh: Json }} props
 */
function SshConnect({ ssh }) {
  if (!ssh?.sshCommand && !ssh?.hostKeyFingerprint) return null;
  return html`<section aria-label="SSH">
    ${ssh.sshCommand && html`<p class="row"><span class="muted">SSH:</span> <code data-testid="ssh-command">${ssh.sshCommand}</code>
      <${CopyButton} text=${ssh.sshCommand} label="Copy SSH command" /></p>`}
    ${ssh.hostKeyFingerprint && html`<p><span class="muted">Host key fingerprint:</span> <code data-testid="ssh-host-key">${ssh.hostKeyFingerprint}</code></p>`}
    <p class="muted">Signs in with a key registered on <a href="#/ssh-keys">SSH keys</a>.</p>
  </section>`;
}

/** @param {{ id: string }} props */
function Instance({ id }) {
  const act = useAction();
  const state = useLoad(async () => {
    const i = await get(`${GPU}/gpu/instance`, { instanceId: id });
    const now = Math.floor(Date.now() / 1000);
    // cost so far: its usage bills (the API answers at most 31 days at a time)
    // the cost is a detail: a bill query that fails (a server clock ahead of the browser's) does not hide the instance
    const bills = can('readBilling')
      ? await get('/openapi/v1/billing/bill/list', { cycleType: 'Month', productCategory: 'summary', ownerId: id, startTime: Math.min(now, Math.max(Number(i.createdAt), now - 31 * 86400)), endTime: now }).catch(() => undefined) : undefined;
    return { i, cost: bills?.bills.reduce((/** @type {bigint} */ a, /** @type {Json} */ b) => a + BigInt(b.amount), 0n) };
  }, [id]);
  usePoll(!!state.data && !STEADY.includes(state.data.i.status), state);
  const change = can('changeCompute');
  return html`<p><a href="#/instances">← Instances</a></p><${Loaded} state=${state}>${(/** @type {{ i: Json, cost: bigint | undefined }} */ { i, cost }) => html`
    <h1>${i.name || i.id}</h1>
    <div class="cards">
      <div class="card"><div class="label">Status</div><div class="value" data-testid="instance-status"><${InstanceStatus} i=${i} reason=${false} /></div></div>
      <div class="card"><div class="label">Product</div><div class="value">${i.productName} × ${i.gpuNum}</div></div>
      ${cost !== undefined && html`<div class="card"><div class="label">Cost so far (last 31 days)</div><div class="value"><${Money} units=${cost} /></div></div>`}
    </div>
    ${i.statusError?.message && html`<p class=${`why tone-${statusLook(i).tone}`} data-testid="instance-reason"><strong>${statusLook(i).tone === 'failed' ? 'Failed' : 'Reason'}:</strong> ${i.statusError.message}</p>`}
    <p class="row">
      ${change && html`<${Actions} i=${i} act=${act} onDone=${state.reload} />`}
      <button type="button" onClick=${state.reload}>Refresh</button>
      ${!STEADY.includes(i.status) && html`<span class="muted" aria-busy="true">${i.status}…</span>`}
    </p>
    <${ErrorBox} error=${act.error} />
    <h2>Connect</h2>
    <${Ports} ports=${i.network?.ports ?? i.portMappings ?? []} />
    <${SshConnect} ssh=${i.connectComponentSSH} />
    <${TerminalSection} id=${id} available=${!!i.connectComponentWebTerminal?.url} />
    <h2>Details</h2>
    <${Table} label="Instance details" rows=${[['Id', i.id], ['Image', i.imageUrl], ['Root disk', `${i.rootfsSize} GB`], ['Cluster', i.clusterName || i.clusterId], ['Billing', i.billingMode], ['Created', when(i.createdAt)]]}
      columns=${/** @type {Columns} */ ([{ label: 'Field', cell: (r) => r[0] }, { label: 'Value', cell: (r) => r[1] }])} />
    <${MetricsSection} id=${id} running=${i.status === 'running'} />
    <h2>Log</h2>
    <p class="muted">Status changes (<code>[gantry]</code> lines) and the workload's output, followed live.</p>
    <${LiveLog} key=${id} url=${`${GPU}/gpu/instance/log?${new URLSearchParams({ instanceId: id, follow: '1', sse: '1', timestamps: '1', tail: '200' })}`} />`}<//>`;
}

/**
 * The instance's GPU, CPU and memory use over time: its module (and uPlot) are loaded with the
 * instance's page, not with the console's first view.
 * @param {{ id: string, running: boolean }} props
 */
function MetricsSection({ id, running }) {
  const [Panel, setPanel] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {import('../ui.js').Shown | undefined} */ (undefined));
  useEffect(() => { import('./instance-metrics.js').then((m) => setPanel(() => m.InstanceMetrics), setError); }, []);
  if (error) return html`<h2>Metrics</h2><${ErrorBox} error=${error} />`;
  return Panel ? html`<${Panel} id=${id} running=${running} />` : html`<h2>Metrics</h2><p class="muted" aria-busy="true">Loading…</p>`;
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

/**
 * What GPU time would cost before it is started: the product's price (1/10000 USD per
 * GPU-hour, compat.md "Decision") × GPUs × hours; `workers` (an endpoint's min–max) multiplies
 * again. An amount the form cannot read yet (no GPUs typed) shows nothing.
 * @param {{ price: string | number | undefined, gpus: string | number, workers?: [number, number], what: string }} props
 */
export function CostPreview({ price, gpus, workers, what }) {
  const n = Number(gpus);
  if (price === undefined || price === '' || !Number.isInteger(n) || n < 0) return null;
  const perWorker = BigInt(price) * BigInt(n);
  const [lo, hi] = workers ?? [1, 1];
  const hour = (/** @type {number} */ w) => perWorker * BigInt(w);
  const range = (/** @type {number} */ hours) => (lo === hi ? usd(hour(lo) * BigInt(hours)) : `${usd(hour(lo) * BigInt(hours))} to ${usd(hour(hi) * BigInt(hours))}`);
  const how = `${money(price)} per GPU-hour × ${n} GPU${n === 1 ? '' : 's'}${workers ? ` × ${lo === hi ? lo : `${lo}–${hi}`} workers` : ''}`;
  return html`<p class="cost-preview" role="status" aria-label=${`Cost of ${what}`} title=${`exactly ${money(hour(hi))} per hour at the most`}>
    <strong>${range(1)} per hour</strong> <span class="muted">(${how}); ${range(24)} a day, ${range(24 * 30)} for 30 days${workers && lo === 0 ? '; nothing while scaled to zero' : ''}</span></p>`;
}

/**
 * What each running or stopped instance (or endpoint) of a list has cost so far: one bill
 * query for the page (the bill API answers at most 31 days: the last 31), summed by owner.
 * Undefined until known, and for a role that may not read bills.
 * @param {'gpu' | 'serverless'} category
 * @param {Json} listed the list answer, to read again when it changes
 * @returns {Map<string, bigint> | undefined}
 */
export function useCostsSoFar(category, listed) {
  const [costs, setCosts] = useState(/** @type {Map<string, bigint> | undefined} */ (undefined));
  useEffect(() => {
    if (!can('readBilling') || !listed) return undefined;
    let live = true;
    const now = Math.floor(Date.now() / 1000);
    get('/openapi/v1/billing/bill/list', { cycleType: 'Month', productCategory: category, startTime: now - 31 * 86400, endTime: now }).then((r) => {
      /** @type {Map<string, bigint>} */
      const m = new Map();
      for (const b of r.bills) m.set(b.ownerID, (m.get(b.ownerID) ?? 0n) + BigInt(b.amount));
      if (live) setCosts(m);
    }, () => { if (live) setCosts(undefined); }); // a detail: a failing bill query leaves the list as it is
    return () => { live = false; };
  }, [listed]);
  return costs;
}
