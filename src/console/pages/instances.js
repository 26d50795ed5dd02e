// @ts-check
// Instances and templates: a page of instances with status (server paging, one request per
// view; removed ones hidden unless asked for), create from a product or a template (the
// team's own, official or community ones), with a start command, entrypoint, environment
// variables and a network storage (a form that keeps what was typed when the API refuses it,
// the refusal shown at its field: instance-form.js), and an
// instance's page: start, stop, restart, delete, its ports as links, its SSH command and host
// key when Gantry serves SSH, cost so far, the web terminal, its GPU metrics (instance-metrics.js, loaded with that page) and its log
// followed live (EventSource).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { can, get, post } from '../api.js';
import { CopyButton, ErrorBox, Field, LiveLog, Loaded, Money, Pager, refusalAt, Table, useAction, useLoad, when } from '../ui.js';
import { money, usd } from '../money.js';
import { BLANK, checkInstanceForm, instanceBody, instanceControlOf, withTemplate } from '../instance-form.js';
import { EnvEditor, loadStorages, StorageField } from '../workload-fields.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../instance-form.js').InstanceFields} InstanceFields */
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

/**
 * The create form: a product, an image or a template (the team's own, official and community
 * ones; choosing one fills in its start command, entrypoint and variables), the start command,
 * entrypoint, environment variables and a network storage; the form's own checks and the
 * API's refusal at the control they name, everything typed kept.
 * @param {{ onOpen: () => void, onCreated: (c: { id: string, name: string }) => void }} props
 */
function CreateInstance({ onOpen, onCreated }) {
  const act = useAction();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(BLANK);
  const [checks, setChecks] = useState(/** @type {Record<string, string>} */ ({}));
  // the rows each pair sent came from, to place a refusal of `envs[i]`
  const [sentRows, setSentRows] = useState(/** @type {number[]} */ ([]));
  const choices = useLoad(async () => {
    if (!open) return undefined;
    const [products, own, shared, storage] = await Promise.all([
      get(`${GPU}/products`),
      get(`${GPU}/templates`, { channel: 'private', isMyCommunity: 'true', pageSize: 100, pageNum: 1 }),
      get(`${GPU}/templates`, { channel: 'official,community', isMyCommunity: 'false', pageSize: 100, pageNum: 1 }),
      loadStorages(),
    ]);
    return { products: products.data, templates: [...own.template, ...shared.template], ...storage };
  }, [open]);
  if (!open) return html`<p><button type="button" class="primary" onClick=${() => { onOpen(); setOpen(true); }}>Create an instance</button></p>`;
  const close = () => { setOpen(false); setForm(BLANK); setChecks({}); act.clear(); };
  const field = /** @type {{ field?: string } | undefined} */ (act.error)?.field;
  const at = field ? instanceControlOf(field, sentRows) : undefined;
  const refused = at ? refusalAt(act.error, { [/** @type {string} */ (field)]: at }) : {};
  /** @param {Partial<InstanceFields>} change @param {string} control */
  const update = (change, control) => {
    setForm((f) => ({ ...f, ...change }));
    if (refused[control] || (control === 'envs' && Object.keys(refused).some((k) => k.startsWith('envs')))) act.clear(); // the refused control is being corrected (rows added or removed move the one refused)
    if (checks[control]) setChecks(({ [control]: _, ...rest }) => rest);
  };
  return html`<${Loaded} state=${choices}>${(/** @type {Json} */ c) => {
    if (!c) return null;
    const products = /** @type {Json[]} */ (c.products);
    const product = products.find((p) => p.id === form.productId) ?? products.find((p) => p.availableDeploy) ?? products[0];
    // until it is typed in, the disk is 50 GB within the product's range
    const disk = form.rootfsSize !== null ? form.rootfsSize
      : product ? String(Math.min(Math.max(50, product.minRootFS), product.maxRootFS)) : '50';
    /** @param {Submit} e */
    const create = (e) => {
      e.preventDefault();
      const bad = checkInstanceForm(form);
      setChecks(bad);
      act.clear();
      if (Object.keys(bad).length) return;
      const { body, rowOf } = instanceBody(form, { productId: product?.id ?? '', disk });
      setSentRows(rowOf);
      void act.run(async () => {
        const r = await post(`${GPU}/gpu/instance/create`, body);
        close();
        onCreated({ id: r.id, name: form.name });
      });
    };
    return html`<form class="grid" onSubmit=${create} aria-label="Create an instance" novalidate>
      <${InstanceFields} form=${form} update=${update} errors=${{ ...checks, ...refused }} c=${c} product=${product} disk=${disk} />
      <${CostPreview} price=${product?.price} gpus=${form.gpuNum} what="this instance" />
      <div class="buttons">
        <button class="primary" type="submit" disabled=${act.busy}>Create</button>
        <button type="button" onClick=${close}>Cancel</button>
      </div>
    </form>${!at && html`<${ErrorBox} error=${act.error} />`}`;
  }}<//>`;
}

/** A template's label in the choice: its name and where it comes from. */
const TEMPLATE_GROUPS = /** @type {[string, string][]} */ ([['private', 'Your team\'s templates'], ['official', 'Official templates'], ['community', 'Community templates']]);

/**
 * The create form's controls, each with its hint and the error at it.
 * @param {{ form: InstanceFields, update: (change: Partial<InstanceFields>, control: string) => void, errors: Record<string, string>, c: Json, product: Json | undefined, disk: string }} props
 */
function InstanceFields({ form, update, errors, c, product, disk }) {
  const fromTemplate = form.templateId !== '';
  const templates = /** @type {Json[]} */ (c.templates);
  /** @param {keyof InstanceFields & string} k */
  const set = (k) => (/** @type {On<HTMLInputElement | HTMLSelectElement>} */ e) => update({ [k]: e.currentTarget.value }, k);
  /** @param {keyof InstanceFields & string} k @param {string} label @param {(a: Record<string, string | undefined>) => unknown} control @param {unknown} [hint] */
  const field = (k, label, control, hint) => html`<${Field} id=${`ci-${k}`} label=${label} error=${errors[k]} hint=${hint} control=${control} />`;
  const chooseTemplate = (/** @type {On<HTMLSelectElement>} */ e) => {
    const t = templates.find((x) => x.Id === e.currentTarget.value);
    const next = withTemplate(form, t);
    update({ templateId: next.templateId, command: next.command, entrypoint: next.entrypoint, envs: next.envs }, 'templateId');
  };
  const fromIt = fromTemplate ? 'from the template' : undefined;
  // what the template runs with, shown in the fields it decides
  const tpl = templates.find((t) => t.Id === form.templateId);
  const shown = tpl ? { imageUrl: tpl.image, disk: String(tpl.rootfsSize), ports: tpl.ports.flatMap((/** @type {Json} */ e) => e.ports.map((/** @type {number} */ n) => `${n}/${e.type}`)).join(',') }
    : { imageUrl: form.imageUrl, disk, ports: form.ports };
  return html`
    ${field('name', 'Instance name', (a) => html`<input name="name" maxlength="255" value=${form.name} onInput=${set('name')} ...${a} />`)}
    ${field('productId', 'Product', (a) => html`<select name="productId" required value=${product?.id ?? ''} onChange=${set('productId')} ...${a}>${c.products.map((/** @type {Json} */ p) => html`<option value=${p.id} disabled=${!p.availableDeploy}>${p.name} — ${money(p.price)}/GPU-hour${p.availableDeploy ? '' : ' (none free)'}</option>`)}</select>`)}
    ${field('gpuNum', 'GPUs', (a) => html`<input name="gpuNum" type="number" min="1" max="8" required value=${form.gpuNum} onInput=${set('gpuNum')} ...${a} />`)}
    ${field('templateId', 'Template', (a) => html`<select name="templateId" value=${form.templateId} onChange=${chooseTemplate} ...${a}><option value="">none: an image</option>
      ${TEMPLATE_GROUPS.map(([channel, label]) => {
        const of = templates.filter((t) => t.channel === channel);
        return of.length ? html`<optgroup label=${label}>${of.map((t) => html`<option value=${t.Id}>${t.name}</option>`)}</optgroup>` : null;
      })}</select>`, fromTemplate ? 'fills in its start command, entrypoint and variables' : undefined)}
    ${field('imageUrl', 'Image', (a) => html`<input name="imageUrl" value=${shown.imageUrl} disabled=${fromTemplate} onInput=${set('imageUrl')} ...${a} />`, fromIt)}
    ${field('rootfsSize', 'Root disk (GB)', (a) => html`<input name="rootfsSize" type="number" min="1" value=${shown.disk} disabled=${fromTemplate} onInput=${set('rootfsSize')} ...${a} />`,
      fromIt ?? (product ? `${product.minRootFS}–${product.maxRootFS} GB for ${product.name}` : undefined))}
    ${field('ports', 'Ports', (a) => html`<input name="ports" placeholder="80/http,22/tcp" value=${shown.ports} disabled=${fromTemplate} onInput=${set('ports')} ...${a} />`, fromIt)}
    ${field('command', 'Start command', (a) => html`<input name="command" maxlength="2047" placeholder="python serve.py --port 80" value=${form.command} onInput=${set('command')} spellcheck="false" ...${a} />`, 'empty: the image\'s own')}
    ${field('entrypoint', 'Entrypoint', (a) => html`<input name="entrypoint" maxlength="2047" placeholder="/bin/sh -c" value=${form.entrypoint} onInput=${set('entrypoint')} spellcheck="false" ...${a} />`, 'empty: the image\'s own')}
    <${StorageField} id="ci" runs="the instance runs" storages=${c.storages} productsIn=${c.productsIn} productId=${product?.id} value=${form.storageId} mountPath=${form.mountPoint}
      onStorage=${(/** @type {string} */ v) => update({ storageId: v }, 'storageId')} onMountPath=${(/** @type {string} */ v) => update({ mountPoint: v }, 'mountPoint')}
      errors=${{ storage: errors.storageId, mountPath: errors.mountPoint }} />
    <${EnvEditor} id="ci-env" rows=${form.envs} errors=${errors} onChange=${(/** @type {import('../envs.js').EnvRow[]} */ envs, /** @type {string} */ changed) => update({ envs }, changed)} />`;
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
