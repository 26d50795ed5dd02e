// @ts-check
// Serverless endpoints: a page of endpoints, one endpoint with its workers and their states,
// a chart of its requests and workers over time (endpoint-metrics.js), its scaling events and
// worker logs followed live (EventSource), and editing its worker limits (the update replaces
// the endpoint: every other field is sent back as read).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { can, get, post } from '../api.js';
import { ErrorBox, fields, LiveLog, Loaded, Pager, Status, Table, useAction, useLoad } from '../ui.js';
import { GPU } from './instances.js';
import { EndpointMetrics } from './endpoint-metrics.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const PAGE = 20;

/** @param {import('../ui.js').PageProps} props */
export function Serverless({ args }) {
  if (args?.[0]) return html`<${Endpoint} id=${args[0]} />`;
  const [page, setPage] = useState(1);
  const state = useLoad(() => get(`${GPU}/endpoints`, { pageSize: PAGE, pageNum: page }), [page]);
  return html`<h1>Serverless endpoints</h1>
    <button type="button" onClick=${state.reload}>Refresh</button>
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Endpoints" rows=${d.endpoints} empty="No endpoints." columns=${/** @type {Columns} */ ([
        { label: 'Name', cell: (e) => html`<a href=${`#/serverless/${e.id}`}>${e.name || e.id}</a>` },
        { label: 'State', cell: (e) => html`<${Status} value=${e.state.state} />${e.state.message ? html`<div class="muted">${e.state.message}</div>` : ''}` },
        { label: 'Workers', cell: (e) => `${e.workers.filter((/** @type {Json} */ w) => w.state.state === 'running').length} running of ${e.workers.length} (min ${e.workerConfig.minNum}, max ${e.workerConfig.maxNum})` },
        { label: 'URL', cell: (e) => html`<code>${e.url}</code>` },
      ])} />
      <${Pager} page=${page} pageSize=${PAGE} total=${d.total} onPage=${setPage} />`}<//>`;
}

/** @param {{ id: string }} props */
function Endpoint({ id }) {
  const state = useLoad(() => get(`${GPU}/endpoint`, { id }).then((r) => r.endpoint), [id]);
  const [logOf, setLogOf] = useState({ kind: 'endpoint', id });
  return html`<p><a href="#/serverless">← Serverless</a></p><${Loaded} state=${state}>${(/** @type {Json} */ e) => html`
    <h1>${e.name || e.id}</h1>
    <p><${Status} value=${e.state.state} /> ${e.state.message} · <code>${e.url}</code> <button type="button" onClick=${state.reload}>Refresh</button></p>
    <h2>Workers</h2>
    <${Table} label="Workers" rows=${e.workers} empty="No workers (scaled to zero)." columns=${/** @type {Columns} */ ([
      { label: 'Worker', cell: (w) => w.id }, { label: 'State', cell: (w) => html`<${Status} value=${w.state.state} />${w.state.message ? html`<div class="muted">${w.state.message}</div>` : ''}` },
      { label: 'Healthy', cell: (w) => (w.healthy ? 'yes' : 'no') },
      { label: 'Log', cell: (w) => html`<button type="button" onClick=${() => setLogOf({ kind: 'worker', id: w.id })}>Follow log</button>` },
    ])} />
    <${EndpointMetrics} id=${id} />
    ${can('changeCompute') && html`<${Edit} e=${e} onSaved=${state.reload} />`}
    <h2>${logOf.kind === 'endpoint' ? 'Scaling events (endpoint log)' : `Log of worker ${logOf.id}`}</h2>
    ${logOf.kind === 'worker' && html`<button type="button" onClick=${() => setLogOf({ kind: 'endpoint', id })}>Back to the endpoint log</button>`}
    <${LiveLog} key=${`${logOf.kind}:${logOf.id}`} url=${`${GPU}/endpoint${logOf.kind === 'worker' ? '/worker' : ''}/log?${new URLSearchParams({ id: logOf.id, follow: '1', sse: '1', timestamps: '1', tail: '200' })}`} />`}<//>`;
}

/** @param {{ e: Json, onSaved: () => void }} props */
function Edit({ e, onSaved }) {
  const act = useAction();
  /** @param {Submit} ev */
  const save = (ev) => {
    const f = fields(ev);
    const body = {
      id: e.id, name: e.name, appName: e.appName, rootfsSize: e.rootfsSize, volumeMounts: e.volumeMounts, envs: e.envs, healthy: e.healthy, products: e.products,
      ...(e.clusterID ? { clusterID: e.clusterID } : {}), ports: e.ports.map((/** @type {Json} */ p) => ({ port: Number(p.port) })),
      image: e.image, policy: { type: e.policy.type, value: Number(e.policy.value) },
      workerConfig: { minNum: Number(f.minNum), maxNum: Number(f.maxNum), freeTimeout: Number(e.workerConfig.freeTimeout), maxConcurrent: Number(f.maxConcurrent), gpuNum: e.workerConfig.gpuNum, requestTimeout: e.workerConfig.requestTimeout },
    };
    void act.run(async () => { await post(`${GPU}/endpoint/update`, body); onSaved(); });
  };
  return html`<h2>Scaling</h2><form class="inline" onSubmit=${save} aria-label="Edit scaling">
    <label>Min workers<input name="minNum" type="number" min="0" value=${e.workerConfig.minNum} /></label>
    <label>Max workers<input name="maxNum" type="number" min="1" value=${e.workerConfig.maxNum} /></label>
    <label>Requests per worker<input name="maxConcurrent" type="number" min="1" value=${e.workerConfig.maxConcurrent} /></label>
    <button class="primary" type="submit" disabled=${act.busy}>Save</button>
  </form><${ErrorBox} error=${act.error} />`;
}
