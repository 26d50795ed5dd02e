// @ts-check
// Serverless endpoints: a page of endpoints with what each has cost so far, creating one (image,
// start command, port, GPU product and count, workers, policy, health path, environment
// variables, a network storage; the ranges of
// /endpoint/limit; its cost per hour before it starts; the API's refusal shown at its field,
// what was typed kept) and deleting one; an endpoint's page with its state and workers followed
// (read again every LIVE_MS while the page is shown, with the time of the last read),
// a chart of its requests and workers over time (endpoint-metrics.js), its scaling events and
// worker logs followed live (EventSource), and editing its scaling (the update replaces the
// endpoint and rolls its workers over: every other field is sent back as read, and the form
// says so before Save).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { can, get, post } from '../api.js';
import { ErrorBox, Field, LiveLog, Loaded, Money, Pager, refusalAt, Status, Table, useAction, useLoad } from '../ui.js';
import { money } from '../money.js';
import { CostPreview, GPU, useCostsSoFar } from './instances.js';
import { EndpointMetrics } from './endpoint-metrics.js';
import { BLANK, checkEndpointForm, endpointBody, formFieldOf } from '../endpoint-form.js';
import { EnvEditor, loadStorages, StorageField } from '../workload-fields.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../endpoint-form.js').CreateFields} CreateFields */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */

const PAGE = 20;

/** @param {import('../ui.js').PageProps} props */
export function Serverless({ args }) {
  if (args?.[0]) return html`<${Endpoint} id=${args[0]} />`;
  return html`<${EndpointList} />`;
}

/**
 * Deletes an endpoint after asking; `onDone` after the API took it (it is terminating).
 * @param {ReturnType<typeof useAction>} act
 * @param {Json} e
 * @param {() => void} onDone
 */
function deleteEndpoint(act, e, onDone) {
  void act.run(async () => {
    if (!confirm(`Delete ${e.name || e.id}? Its workers stop and its URL stops answering.`)) return;
    await post(`${GPU}/endpoint/delete`, { name: e.id }); // the field is called name and holds the id (compat.md)
    onDone();
  });
}

function EndpointList() {
  const [page, setPage] = useState(1);
  const [created, setCreated] = useState(/** @type {{ id: string, name: string } | undefined} */ (undefined));
  const act = useAction();
  const state = useLoad(() => get(`${GPU}/endpoints`, { pageSize: PAGE, pageNum: page }), [page]);
  const costs = useCostsSoFar('serverless', state.data);
  const change = can('changeCompute');
  return html`<h1>Serverless endpoints</h1>
    ${change && html`<${CreateEndpoint} onOpen=${() => setCreated(undefined)} onCreated=${(/** @type {{ id: string, name: string }} */ c) => { setCreated(c); state.reload(); }} />`}
    ${created && html`<p class="notice" role="status">Endpoint <a href=${`#/serverless/${created.id}`}>${created.name || created.id}</a> created: its workers are starting.</p>`}
    <p><button type="button" onClick=${state.reload}>Refresh</button></p>
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Endpoints" rows=${d.endpoints} empty="No endpoints." columns=${/** @type {Columns} */ ([
        { label: 'Name', cell: (e) => html`<a href=${`#/serverless/${e.id}`}>${e.name || e.id}</a>` },
        { label: 'State', cell: (e) => html`<${Status} value=${e.state.state} />${e.state.message ? html`<div class="muted">${e.state.message}</div>` : ''}` },
        { label: 'Workers', cell: (e) => `${e.workers.filter((/** @type {Json} */ w) => w.state.state === 'running').length} running of ${e.workers.length} (min ${e.workerConfig.minNum}, max ${e.workerConfig.maxNum})` },
        ...(costs ? [{ label: 'Cost so far', num: true, cell: (/** @type {Json} */ e) => html`<${Money} units=${costs.get(e.id) ?? 0n} />` }] : []),
        { label: 'URL', cell: (e) => html`<code>${e.url}</code>` },
        ...(change ? [{ label: 'Actions', cell: (/** @type {Json} */ e) => (e.state.state === 'terminating' ? html`<span class="muted">deleting…</span>`
          : html`<button type="button" class="danger" disabled=${act.busy} onClick=${() => deleteEndpoint(act, e, state.reload)}>Delete</button>`) }] : []),
      ])} />
      <${Pager} page=${page} pageSize=${PAGE} total=${d.total} onPage=${setPage} />`}<//>`;
}

/**
 * The API's refusal at the form's field it names.
 * @param {unknown} error
 * @param {string} prefix
 * @param {number[]} [rowOf] the row each variable sent came from
 */
function refusedAt(error, prefix, rowOf) {
  const field = /** @type {{ field?: string } | undefined} */ (error)?.field;
  const k = field ? formFieldOf(field, prefix, rowOf) : undefined;
  return k ? refusalAt(error, { [/** @type {string} */ (field)]: k }) : {};
}

/**
 * The create form's fields, each with its range and the error at it.
 * @param {{ form: CreateFields, set: (k: keyof CreateFields) => (e: On<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => void,
 *   update: (change: Partial<CreateFields>, control: string) => void, errors: Record<string, string>, l: Json, products: Json[], product: Json | undefined, c: Json }} props
 */
function EndpointFields({ form, set, update, errors, l, products, product, c }) {
  /**
   * @param {keyof CreateFields} k
   * @param {string} label
   * @param {(a: Record<string, string | undefined>) => unknown} control
   * @param {unknown} [hint]
   */
  const field = (k, label, control, hint) => html`<${Field} id=${`ce-${k}`} label=${label} error=${errors[k]} hint=${hint} control=${control} />`;
  /** @param {keyof CreateFields} k @param {number} min @param {number} max */
  const num = (k, min, max) => (/** @type {Record<string, string | undefined>} */ a) => html`<input name=${k} type="number" min=${min} max=${max} value=${form[k]} onInput=${set(k)} ...${a} />`;
  const policyHint = form.policyType === 'queue' ? `seconds a request may wait before a worker is added: ${l.minQueueWaitTime}–${l.maxQueueWaitTime}`
    : `requests waiting before a worker is added: ${l.minRequestNum}–${l.maxRequestNum}`;
  return html`
    ${field('name', 'Endpoint name', (a) => html`<input name="name" maxlength="255" value=${form.name} onInput=${set('name')} ...${a} />`, 'optional')}
    ${field('image', 'Image', (a) => html`<input name="image" maxlength="511" placeholder="ghcr.io/acme/api:1" value=${form.image} onInput=${set('image')} ...${a} />`)}
    ${field('port', 'HTTP port', num('port', 1, 65535), 'the one port the workers answer on')}
    ${field('productId', 'GPU product', (a) => html`<select name="productId" value=${product?.id ?? ''} onChange=${set('productId')} ...${a}>${products.map((p) => html`<option value=${p.id} disabled=${!p.availableDeploy}>${p.name} — ${money(p.price)}/GPU-hour${p.availableDeploy ? '' : ' (none free)'}</option>`)}</select>`)}
    ${field('gpuNum', 'GPUs per worker', num('gpuNum', l.minGPUNum, l.maxGPUNum), `${l.minGPUNum}–${l.maxGPUNum}`)}
    ${field('minNum', 'Min workers', num('minNum', l.minWorkerNum, l.maxWorkerNum), `${l.minWorkerNum}–${l.maxWorkerNum}${l.minWorkerNum === 0 ? ' (0: scale to zero)' : ''}`)}
    ${field('maxNum', 'Max workers', num('maxNum', Math.max(1, l.minWorkerNum), l.maxWorkerNum), `at least the minimum, at most ${l.maxWorkerNum}`)}
    ${field('maxConcurrent', 'Requests per worker', num('maxConcurrent', l.minConcurrencyNum, l.maxConcurrencyNum), `${l.minConcurrencyNum}–${l.maxConcurrencyNum} at once`)}
    ${field('policyType', 'Scale by', (a) => html`<select name="policyType" value=${form.policyType} onChange=${set('policyType')} ...${a}>
      <option value="queue">queue wait (seconds)</option><option value="concurrency">queued requests</option></select>`)}
    ${field('policyValue', 'Scaling threshold', num('policyValue', 0, 100000), policyHint)}
    ${field('healthPath', 'Health path', (a) => html`<input name="healthPath" maxlength="255" value=${form.healthPath} onInput=${set('healthPath')} ...${a} />`, 'a worker takes requests once this answers 200')}
    ${field('command', 'Start command', (a) => html`<input name="command" maxlength="2047" value=${form.command} onInput=${set('command')} spellcheck="false" ...${a} />`, 'empty: the image\'s own')}
    <${StorageField} id="ce" runs="the workers run" storages=${c.storages} productsIn=${c.productsIn} productId=${product?.id} value=${form.storageId} mountPath=${form.mountPath}
      onStorage=${(/** @type {string} */ v) => update({ storageId: v }, 'storageId')} onMountPath=${(/** @type {string} */ v) => update({ mountPath: v }, 'mountPath')}
      errors=${{ storage: errors.storageId, mountPath: errors.mountPath }} />
    <${EnvEditor} id="ce-env" rows=${form.envs} errors=${errors} onChange=${(/** @type {import('../envs.js').EnvRow[]} */ envs, /** @type {string} */ changed) => update({ envs }, changed)} />`;
}

/** @param {{ onOpen: () => void, onCreated: (c: { id: string, name: string }) => void }} props */
function CreateEndpoint({ onOpen, onCreated }) {
  const act = useAction();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(BLANK);
  // the form's own checks, at their fields (the API judges again)
  const [checks, setChecks] = useState(/** @type {Record<string, string>} */ ({}));
  const [sentRows, setSentRows] = useState(/** @type {number[]} */ ([]));
  const choices = useLoad(async () => {
    if (!open) return undefined;
    const [products, limits, storage] = await Promise.all([get(`${GPU}/products`), get(`${GPU}/endpoint/limit`), loadStorages()]);
    return { products: /** @type {Json[]} */ (products.data), limits, ...storage };
  }, [open]);
  if (!open) return html`<p><button type="button" class="primary" onClick=${() => { onOpen(); setOpen(true); }}>Create an endpoint</button></p>`;
  const close = () => { setOpen(false); setForm(BLANK); setChecks({}); act.clear(); };
  const refused = refusedAt(act.error, 'endpoint.', sentRows);
  /** @param {Partial<CreateFields>} change @param {string} control */
  const update = (change, control) => {
    setForm((f) => ({ ...f, ...change }));
    if (refused[control] || (control === 'envs' && Object.keys(refused).some((k) => k.startsWith('envs')))) act.clear(); // the refused field is being corrected
    if (checks[control]) setChecks(({ [control]: _, ...rest }) => rest);
  };
  /** @param {keyof CreateFields} k */
  const set = (k) => (/** @type {On<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>} */ e) => update({ [k]: e.currentTarget.value }, k);
  return html`<${Loaded} state=${choices}>${(/** @type {Json} */ c) => {
    if (!c) return null;
    const products = /** @type {Json[]} */ (c.products);
    const product = products.find((p) => p.id === form.productId) ?? products.find((p) => p.availableDeploy) ?? products[0];
    /** @param {Submit} ev */
    const create = (ev) => {
      ev.preventDefault();
      const bad = checkEndpointForm(form, c.limits);
      setChecks(bad);
      act.clear();
      if (Object.keys(bad).length) return;
      const { body, rowOf } = endpointBody(form, product?.id ?? '', c.storages.find((/** @type {Json} */ s) => s.storageId === form.storageId));
      setSentRows(rowOf);
      void act.run(async () => {
        const r = await post(`${GPU}/endpoint/create`, body);
        close();
        onCreated({ id: r.id, name: form.name.trim() });
      });
    };
    return html`<form class="grid" onSubmit=${create} aria-label="Create an endpoint" novalidate>
      <${EndpointFields} form=${form} set=${set} update=${update} errors=${{ ...checks, ...refused }} l=${c.limits} products=${products} product=${product} c=${c} />
      <${CostPreview} price=${product?.price} gpus=${form.gpuNum} workers=${[Number(form.minNum) || 0, Number(form.maxNum) || 0]} what="this endpoint" />
      <div class="buttons">
        <button class="primary" type="submit" disabled=${act.busy}>Create endpoint</button>
        <button type="button" onClick=${close}>Cancel</button>
      </div>
    </form>${!Object.keys(refused).length && html`<${ErrorBox} error=${act.error} />`}`;
  }}<//>`;
}

/** While an endpoint's page is shown, it is read again this long after each answer (the API has no event stream of endpoint states). */
const LIVE_MS = 2000;

/**
 * Reads `state` again LIVE_MS after each answer while the page is shown and the tab visible
 * (at once when it is shown again); never after a failed read (its Retry starts again), and
 * nothing once the page is left: the effect's cleanup clears the timer and the listener.
 * @param {{ loading: boolean, error: unknown, data: unknown, reload: () => void }} state
 */
function useFollow(state) {
  useEffect(() => {
    if (state.loading || state.error) return undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let t;
    const visible = () => document.visibilityState === 'visible';
    if (visible()) t = setTimeout(state.reload, LIVE_MS);
    const shown = () => { if (visible() && t === undefined) state.reload(); };
    document.addEventListener('visibilitychange', shown);
    return () => { clearTimeout(t); document.removeEventListener('visibilitychange', shown); };
  }, [state.loading, state.error, state.data]);
}

/** @param {{ id: string }} props */
function Endpoint({ id }) {
  const act = useAction();
  // followed: its state and workers change as it scales (useFollow)
  const state = useLoad(async () => ({ e: (await get(`${GPU}/endpoint`, { id })).endpoint, at: Date.now() }), [id]);
  useFollow(state);
  // cost so far, a detail read once: a bill query that fails does not hide the endpoint
  const cost = useLoad(async () => {
    if (!can('readBilling')) return undefined;
    const now = Math.floor(Date.now() / 1000);
    const bills = await get('/openapi/v1/billing/bill/list', { cycleType: 'Month', productCategory: 'serverless', ownerId: id, startTime: now - 31 * 86400, endTime: now }).catch(() => undefined);
    return bills?.bills.reduce((/** @type {bigint} */ a, /** @type {Json} */ b) => a + BigInt(b.amount), 0n);
  }, [id]);
  const [logOf, setLogOf] = useState({ kind: 'endpoint', id });
  const change = can('changeCompute');
  return html`<p><a href="#/serverless">← Serverless</a></p><${Loaded} state=${state}>${(/** @type {{ e: Json, at: number }} */ { e, at }) => html`
    <h1>${e.name || e.id}</h1>
    <p><span data-testid="endpoint-state"><${Status} value=${e.state.state} /> ${e.state.message}</span> · <code>${e.url}</code>
      <span class="muted" title="read again every few seconds while this page is open">updated ${new Date(at).toISOString().slice(11, 19)} UTC</span></p>
    ${change && e.state.state !== 'terminating' && html`<p><button type="button" class="danger" disabled=${act.busy} onClick=${() => deleteEndpoint(act, e, state.reload)}>Delete endpoint</button></p>`}
    <${ErrorBox} error=${act.error} />
    ${cost.data !== undefined && html`<div class="cards"><div class="card"><div class="label">Cost so far (last 31 days)</div><div class="value"><${Money} units=${cost.data} /></div></div></div>`}
    <h2>Workers</h2>
    <${Table} label="Workers" rows=${e.workers} empty="No workers (scaled to zero)." columns=${/** @type {Columns} */ ([
      { label: 'Worker', cell: (w) => w.id }, { label: 'State', cell: (w) => html`<${Status} value=${w.state.state} />${w.state.message ? html`<div class="muted">${w.state.message}</div>` : ''}` },
      { label: 'Healthy', cell: (w) => (w.healthy ? 'yes' : 'no') },
      { label: 'Log', cell: (w) => html`<button type="button" onClick=${() => setLogOf({ kind: 'worker', id: w.id })}>Follow log</button>` },
    ])} />
    <${EndpointMetrics} id=${id} />
    ${change && e.state.state !== 'terminating' && html`<${Edit} key=${e.id} e=${e} onSaved=${state.reload} />`}
    <h2>${logOf.kind === 'endpoint' ? 'Scaling events (endpoint log)' : `Log of worker ${logOf.id}`}</h2>
    ${logOf.kind === 'worker' && html`<button type="button" onClick=${() => setLogOf({ kind: 'endpoint', id })}>Back to the endpoint log</button>`}
    <${LiveLog} key=${`${logOf.kind}:${logOf.id}`} url=${`${GPU}/endpoint${logOf.kind === 'worker' ? '/worker' : ''}/log?${new URLSearchParams({ id: logOf.id, follow: '1', sse: '1', timestamps: '1', tail: '200' })}`} />`}<//>`;
}

/**
 * The scaling settings. An update replaces the whole endpoint (interface.md: every field in
 * full; domain/serverless/README.md: a new spec version whose workers start before the old
 * ones drain), so every other field is sent back as read, and the form warns before Save.
 * What was typed stays after a refusal; the refusal shows at its field.
 * @param {{ e: Json, onSaved: () => void }} props
 */
function Edit({ e, onSaved }) {
  const act = useAction();
  const [form, setForm] = useState({ minNum: String(e.workerConfig.minNum), maxNum: String(e.workerConfig.maxNum), maxConcurrent: String(e.workerConfig.maxConcurrent) });
  const [saved, setSaved] = useState(false);
  const refused = refusedAt(act.error, '');
  /** @param {keyof typeof form} k */
  const set = (k) => (/** @type {On} */ ev) => {
    const value = ev.currentTarget.value;
    setForm((f) => ({ ...f, [k]: value }));
    setSaved(false);
    if (refused[k]) act.clear();
  };
  /** @param {Submit} ev */
  const save = (ev) => {
    ev.preventDefault();
    setSaved(false);
    const body = {
      id: e.id, name: e.name, appName: e.appName, rootfsSize: e.rootfsSize, volumeMounts: e.volumeMounts, envs: e.envs, healthy: e.healthy, products: e.products,
      ...(e.clusterID ? { clusterID: e.clusterID } : {}), ports: e.ports.map((/** @type {Json} */ p) => ({ port: Number(p.port) })),
      image: e.image, policy: { type: e.policy.type, value: Number(e.policy.value) },
      // typed text as it is: the API judges it and names the field it refuses
      workerConfig: { minNum: form.minNum.trim(), maxNum: form.maxNum.trim(), freeTimeout: Number(e.workerConfig.freeTimeout), maxConcurrent: form.maxConcurrent.trim(), gpuNum: e.workerConfig.gpuNum, requestTimeout: e.workerConfig.requestTimeout, cudaVersion: e.workerConfig.cudaVersion },
    };
    void act.run(async () => { await post(`${GPU}/endpoint/update`, body); setSaved(true); onSaved(); });
  };
  /** @param {keyof typeof form} k @param {string} label @param {number} min */
  const field = (k, label, min) => html`<${Field} id=${`es-${k}`} label=${label} error=${refused[k]}
    control=${(/** @type {Record<string, string | undefined>} */ a) => html`<input name=${k} type="number" min=${min} value=${form[k]} onInput=${set(k)} ...${a} />`} />`;
  return html`<h2>Scaling</h2>
    <p class="warn" id="scaling-warning"><strong>Saving replaces every worker.</strong> New workers start with these settings; the current ones stop once the new ones are healthy (both are billed while they overlap).</p>
    <form class="grid" onSubmit=${save} aria-label="Edit scaling" novalidate>
      ${field('minNum', 'Min workers', 0)}
      ${field('maxNum', 'Max workers', 1)}
      ${field('maxConcurrent', 'Requests per worker', 1)}
      <div class="buttons"><button class="primary" type="submit" disabled=${act.busy} aria-describedby="scaling-warning">Save and replace workers</button>
        ${saved && !act.error && html`<span role="status">Saved: new workers are starting.</span>`}</div>
    </form>${!Object.keys(refused).length && html`<${ErrorBox} error=${act.error} />`}`;
}
