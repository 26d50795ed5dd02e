// @ts-check
// Webhooks (Owner/Admin): the team's endpoints (server paging), create, enable/disable, edit,
// delete, a test send; an endpoint whose attempts fail reads as failing; an endpoint's delivery
// log (server paging) with each delivery's payload and a retry of ended deliveries; the signing
// secret shown on demand, and its rotation. Forms keep what was typed when the API refuses it.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, can, get, post } from '../api.js';
import { confirmDialog, ErrorBox, fields, Loaded, Pager, Status, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const BASE = '/openapi/v1/webhook';
const PAGE = 20;
/**
 * The events an endpoint may subscribe to, as the API lists them (read once a session; again after a failure).
 * @type {Promise<string[]> | undefined}
 */
let events;
const loadEvents = () => (events ??= get(`${BASE}/events`).then((r) => r.events, (e) => { events = undefined; throw e; }));
/** While a delivery on the page is pending, the log reads itself again this often. */
const POLL_MS = 3000;
/** @param {string} id */
const ep = (id) => `${BASE}/endpoints/${encodeURIComponent(id)}`;

/** @param {import('../ui.js').PageProps} props */
export function Webhooks({ args }) {
  if (!can('manageWebhooks')) return html`<h1>Webhooks</h1><p class="muted">Only an Owner or Admin may manage webhooks.</p>`;
  if (args?.[0]) return html`<${Endpoint} id=${args[0]} />`;
  return html`<${EndpointList} />`;
}

/** Event checkboxes, `chosen` ticked; read back with form.getAll('events'). */
/** @param {{ chosen?: string[] }} props */
function EventChoices({ chosen = [] }) {
  const state = useLoad(loadEvents);
  return html`<fieldset><legend>Events (at least one)</legend>
    <${Loaded} state=${state}>${(/** @type {Json} */ list) => list.map((/** @type {Json} */ e) => html`<label class="check"><input type="checkbox" name="events" value=${e} defaultChecked=${chosen.includes(e)} /> ${e}</label>`)}<//>
  </fieldset>`;
}

/** @param {Submit} e */
function eventsOf(e) {
  return new FormData(e.currentTarget).getAll('events');
}

/**
 * An endpoint's state: enabled, disabled (and why), or failing: enabled, and every attempt
 * since `failing_since` failed (it is disabled after 5 days of that).
 * @param {{ e: Json }} props
 */
function State({ e }) {
  if (e.state === 'enabled' && e.failing_since) {
    return html`<span class="status failing">failing</span><div class="why-failed">every attempt since ${when(e.failing_since)} failed; disabled after 5 days of failures</div>`;
  }
  return html`<${Status} value=${e.state} />${e.disabled_reason ? html`<div class="muted">${e.disabled_reason}${e.disabled_at ? ` (since ${when(e.disabled_at)})` : ''}</div>` : ''}`;
}

/**
 * Enable, disable and delete, shared by the list and the detail.
 * @param {ReturnType<typeof useAction>} act
 * @param {() => void} done
 */
function useEndpointActions(act, done) {
  /** @param {Json} e */
  const toggle = (e) => void act.run(async () => {
    await api('PATCH', ep(e.id), { enabled: e.state !== 'enabled' });
    done();
  });
  /** @type {(e: Json, after?: () => void) => void} */
  const remove = (e, after = done) => void act.run(async () => {
    if (!await confirmDialog(`Delete the endpoint ${e.url}?`, { confirm: 'Delete endpoint', detail: 'Its delivery log goes with it.' })) return;
    await api('DELETE', ep(e.id));
    after();
  });
  /** @type {(e: Json, after: (delivery: Json) => void) => void} */
  const sendTest = (e, after) => void act.run(async () => after(await post(`${ep(e.id)}/test`)));
  return { toggle, remove, sendTest };
}

function EndpointList() {
  const [page, setPage] = useState(1);
  const act = useAction();
  const state = useLoad(() => get(`${BASE}/endpoints`, { pageSize: PAGE, pageNum: page }), [page]);
  const { toggle, remove, sendTest } = useEndpointActions(act, state.reload);
  const [tested, setTested] = useState(/** @type {Json} */ (undefined));
  /** @param {Submit} e */
  const create = (e) => {
    const f = fields(e);
    const events = eventsOf(e);
    const form = e.currentTarget;
    void act.run(async () => {
      /** @type {Record<string, unknown>} */
      const body = { url: f.url, events };
      if (f.description) body.description = f.description;
      await post(`${BASE}/endpoints`, body);
      form.reset();
      setPage(1);
      state.reload();
    });
  };
  return html`<h1>Webhooks</h1>
    <${SigningSecret} />
    <h2>Endpoints</h2>
    <form onSubmit=${create} aria-label="Create an endpoint" class="stack">
      <label>Endpoint URL<input name="url" type="url" required maxlength="2048" placeholder="https://example.com/hooks/gantry" /></label>
      <label>Description<input name="description" maxlength="500" /></label>
      <${EventChoices} />
      <div><button class="primary" type="submit" disabled=${act.busy}>Create endpoint</button></div>
    </form>
    <${ErrorBox} error=${act.error} />
    ${tested && !act.error && html`<p class="notice" role="status">Test event sent as <code>${tested.d.id}</code> to ${tested.url}: <a href=${`#/webhooks/${tested.id}`}>see its delivery</a>.</p>`}
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Endpoints" rows=${d.endpoints} empty="No endpoints yet." columns=${/** @type {Columns} */ ([
        { label: 'URL', cell: (e) => html`<a href=${`#/webhooks/${e.id}`}>${e.url}</a>${e.description && html`<div class="muted">${e.description}</div>`}` },
        { label: 'Events', cell: (e) => e.events.join(', ') },
        { label: 'State', cell: (e) => html`<${State} e=${e} />` },
        { label: 'Created', cell: (e) => when(e.created_at) },
        { label: 'Actions', cell: (e) => html`<a href=${`#/webhooks/${e.id}`}>Deliveries</a>${' '}
          ${e.state === 'enabled' && html`<button type="button" onClick=${() => sendTest(e, (x) => setTested({ d: x, url: e.url, id: e.id }))} disabled=${act.busy}>Send test</button> `}
          <button type="button" onClick=${() => toggle(e)} disabled=${act.busy}>${e.state === 'enabled' ? 'Disable' : 'Enable'}</button>${' '}
          <button type="button" class="danger" onClick=${() => remove(e)} disabled=${act.busy}>Delete</button>` },
      ])} />
      <${Pager} page=${page} pageSize=${PAGE} total=${d.total} onPage=${setPage} />`}<//>`;
}

function SigningSecret() {
  const act = useAction();
  const [shown, setShown] = useState();
  const [rotated, setRotated] = useState();
  const show = () => void act.run(async () => { setShown((await get(`${BASE}/secret`)).secret); });
  const rotate = () => void act.run(async () => {
    if (!await confirmDialog('Rotate the signing secret?', { confirm: 'Rotate secret', detail: 'Deliveries are signed with the new one at once; the old one keeps signing beside it for 24 hours.' })) return;
    const r = await post(`${BASE}/secret/rotate`);
    setShown(r.secret);
    setRotated(r.previous_valid_until);
  });
  return html`<h2>Signing secret</h2>
    <p class="muted">Every delivery is signed (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) with the team's secret.</p>
    ${shown
      ? html`<div class="notice" role="status">Secret: <span class="secret" data-testid="webhook-secret">${shown}</span>
        <button type="button" onClick=${() => { setShown(undefined); setRotated(undefined); }}>Hide</button>
        ${rotated && html`<div>Rotated. The previous secret keeps signing beside the new one for 24 hours, until ${when(rotated)}.</div>`}</div>`
      : html`<button type="button" onClick=${show} disabled=${act.busy}>Show secret</button>`}
    ${' '}<button type="button" class="danger" onClick=${rotate} disabled=${act.busy}>Rotate secret</button>
    <span class="muted"> (the old secret keeps signing for 24 hours)</span>
    <${ErrorBox} error=${act.error} />`;
}

/** @param {{ id: string }} props */
function Endpoint({ id }) {
  const act = useAction();
  const [saved, setSaved] = useState(false);
  const state = useLoad(() => get(ep(id)), [id]);
  const { toggle, remove, sendTest } = useEndpointActions(act, state.reload);
  const [tested, setTested] = useState(/** @type {string | undefined} */ (undefined));
  /** @param {Submit} e */
  const save = (e) => {
    const f = fields(e);
    const events = eventsOf(e);
    setSaved(false);
    setTested(undefined);
    void act.run(async () => {
      await api('PATCH', ep(id), { url: f.url, description: f.description, events });
      setSaved(true);
      state.reload();
    });
  };
  return html`<p><a href="#/webhooks">← Webhooks</a></p><${Loaded} state=${state}>${(/** @type {Json} */ e) => html`
    <h1>${e.url}</h1>
    <div class="cards">
      <div class="card"><div class="label">State</div><div class="value"><${State} e=${e} /></div></div>
      <div class="card"><div class="label">Created</div><div class="value">${when(e.created_at)}</div></div>
    </div>
    <p>
      ${e.state === 'enabled' && html`<button type="button" onClick=${() => sendTest(e, (x) => setTested(x.id))} disabled=${act.busy}>Send test</button> `}
      <button type="button" onClick=${() => toggle(e)} disabled=${act.busy}>${e.state === 'enabled' ? 'Disable' : 'Enable (forgets its failures)'}</button>
      ${' '}<button type="button" class="danger" onClick=${() => remove(e, () => { location.hash = '#/webhooks'; })} disabled=${act.busy}>Delete</button>
    </p>
    <h2>Edit</h2>
    <form key=${e.id} onSubmit=${save} aria-label="Edit the endpoint" class="stack">
      <label>Endpoint URL<input name="url" type="url" required maxlength="2048" defaultValue=${e.url} /></label>
      <label>Description<input name="description" maxlength="500" defaultValue=${e.description} /></label>
      <${EventChoices} chosen=${e.events} />
      <div><button class="primary" type="submit" disabled=${act.busy}>Save endpoint</button>${saved && !act.error && html`<span role="status"> Saved.</span>`}</div>
    </form>
    <${ErrorBox} error=${act.error} />
    ${tested && !act.error && html`<p class="notice" role="status">Test event sent as <code>${tested}</code>: it is at the top of the log below.</p>`}
    <${Deliveries} id=${id} reloadKey=${tested} onData=${state.reload} />`}<//>`;
}

/**
 * The delivery log; `onData` is told each time it is read (the endpoint's failing state moves with it).
 * @param {{ id: string, reloadKey?: string, onData?: () => void }} props
 */
function Deliveries({ id, reloadKey, onData }) {
  const [page, setPage] = useState(1);
  const act = useAction();
  const state = useLoad(() => get(`${ep(id)}/deliveries`, { pageSize: PAGE, pageNum: page }), [id, page, reloadKey]);
  useEffect(() => { if (state.data) onData?.(); }, [state.data]);
  const pending = state.data?.deliveries.some((/** @type {Json} */ d) => d.state === 'pending');
  useEffect(() => {
    if (!pending || state.loading) return undefined;
    const t = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [pending, state.loading, state.data]);
  /** @param {Json} d */
  const retry = (d) => void act.run(async () => {
    await post(`${ep(id)}/deliveries/${encodeURIComponent(d.id)}/retry`);
    state.reload();
  });
  return html`<h2>Delivery log</h2>
    <p class="muted">Newest first. Pending deliveries are retried with backoff (16 attempts over about 6.5 days); an ended one may be sent again now with the same id and body.</p>
    <button type="button" onClick=${state.reload}>Refresh</button>
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Deliveries" rows=${d.deliveries} empty="No deliveries yet." columns=${/** @type {Columns} */ ([
        { label: 'Delivery', cell: (x) => html`<code>${x.id}</code><div class="muted">${x.event}</div>` },
        { label: 'Payload', cell: (x) => html`<details class="payload"><summary>Payload</summary><pre aria-label=${`Payload of ${x.id}`}>${pretty(x.payload)}</pre></details>` },
        { label: 'State', cell: (x) => html`<${Status} value=${x.state} />` },
        { label: 'Attempts', num: true, cell: (x) => x.attempts },
        { label: 'Status code', num: true, cell: (x) => x.status_code ?? '—' },
        { label: 'Latency', num: true, cell: (x) => (x.latency_ms === null ? '—' : `${x.latency_ms} ms`) },
        { label: 'Error', cell: (x) => (x.error ? html`<span class="why-failed">${x.error}</span>` : '—') },
        { label: 'Last try', cell: (x) => when(x.last_attempt_at) },
        { label: 'Next try', cell: (x) => when(x.next_attempt_at) },
        { label: 'Actions', cell: (x) => x.state !== 'pending' && html`<button type="button" onClick=${() => retry(x)} disabled=${act.busy}>Retry</button>` },
      ])} />
      <${Pager} page=${page} pageSize=${PAGE} total=${d.total} onPage=${setPage} />`}<//>`;
}

/**
 * A payload as sent (JSON), indented to read; as it is when it is not JSON.
 * @param {string | undefined} body
 */
function pretty(body) {
  if (!body) return '';
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
}
