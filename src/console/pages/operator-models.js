// @ts-check
// The operator's model catalogue (issue 45): each model with its status, upstream servers,
// whether an upstream key is stored (and when it was set) and how its upstream has been
// answering (failing with the last error, ok, or no call yet); a model added or edited, with
// what the save's check of each upstream found (reachable, key accepted, model listed, what
// failed); its upstream key set or rotated (write-only: never shown again) or removed; retired.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, get, post, put } from '../api.js';
import { money, parseDollars } from '../money.js';
import { confirmDialog, ErrorBox, fields, Loaded, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

/** The largest price a model takes per million tokens, in units (src/http/schemas.ts MAX_PRICE_UNITS is larger: this is a console bound). */
const MAX_PRICE = 10_000_000_000n;

/** @param {string} id */
const modelPath = (id) => `/admin/v1/models/${encodeURIComponent(id)}`;

/**
 * A model's upstream servers as a list (sim: none).
 * @param {unknown} u
 * @returns {Json[]}
 */
function servers(u) {
  if (u === 'sim' || !u) return [];
  return /** @type {Json[]} */ (Array.isArray(u) ? u : [u]);
}

/** @param {{ m: Json }} props */
function Upstreams({ m }) {
  const list = servers(m.upstream);
  if (!list.length) return html`simulator`;
  return html`${list.map((s) => html`<div><code>${s.url}</code> (${s.model})${s.apiKeyEnv ? html` <span class="muted">key from $${s.apiKeyEnv}</span>` : ''}</div>`)}`;
}

/** @param {{ h: Json | undefined }} props */
function Health({ h }) {
  if (!h || h.state === 'unknown') return html`<span class="muted">no call yet</span>`;
  if (h.state === 'ok') return html`<span class="status ok">ok</span>${h.lastSuccessAt ? html`<div class="muted">last success ${when(h.lastSuccessAt)}</div>` : ''}`;
  return html`<span class="status failing">failing</span> (${h.consecutiveFailures} failed ${h.consecutiveFailures === 1 ? 'call' : 'calls'} in a row)
    <div>${h.lastError}</div><div class="muted">${when(h.lastErrorAt)}</div>`;
}

/** @param {boolean | null} v */
const yesNo = (v) => (v === null ? 'not checked' : v ? 'yes' : 'no');

/** What the save's check found, a line per upstream server. @param {{ check: Json | null, id: string }} props */
function CheckResult({ check, id }) {
  if (!check) return html`<div class="notice" role="status">Saved ${id} (not checked).</div>`;
  if (!check.upstreams.length) return html`<div class="notice" role="status">Saved ${id}: the simulator, nothing to check.</div>`;
  return html`<div class=${check.ok ? 'notice' : 'error'} role="status" aria-label="Upstream check">
    <strong>${check.ok ? `Saved ${id}: the upstream check passed.` : `Saved ${id}: the upstream check failed.`}</strong>
    <ul>${check.upstreams.map((/** @type {Json} */ u) => html`<li><code>${u.url}</code>: reachable ${yesNo(u.reachable)}, key accepted ${yesNo(u.keyAccepted)}, model listed ${yesNo(u.modelListed)}${u.error ? html` — ${u.error}` : ''}</li>`)}</ul>
  </div>`;
}

/**
 * Add or edit a model: one upstream server typed in fields (empty URL: the simulator); a model
 * with several servers keeps them as JSON.
 * @param {{ m: Json | undefined, onSaved: () => void, onCancel: () => void }} props
 */
function ModelForm({ m, onSaved, onCancel }) {
  const act = useAction();
  const [bad, setBad] = useState('');
  const [check, setCheck] = useState(/** @type {{ check: Json | null, id: string } | undefined} */ (undefined));
  const list = m ? servers(m.upstream) : [];
  const several = list.length > 1;
  const one = list[0];
  /** @param {Submit} e */
  const save = (e) => {
    const f = fields(e);
    const inPrice = parseDollars(String(f.input ?? ''), { min: 0n, max: MAX_PRICE });
    const outPrice = parseDollars(String(f.output ?? ''), { min: 0n, max: MAX_PRICE });
    if ('error' in inPrice) return setBad(`Input price: ${inPrice.error}`);
    if ('error' in outPrice) return setBad(`Output price: ${outPrice.error}`);
    /** @type {unknown} */
    let upstream = 'sim';
    if (several) {
      try { upstream = JSON.parse(String(f.servers)); } catch { return setBad('Upstream servers: not JSON'); }
    } else if (String(f.url ?? '').trim()) {
      upstream = { ...(one ?? {}), url: String(f.url).trim(), model: String(f.upstreamModel ?? '').trim() || String(f.id) };
      if (!f.apiKeyEnv) delete (/** @type {Json} */ (upstream)).apiKeyEnv;
      else (/** @type {Json} */ (upstream)).apiKeyEnv = f.apiKeyEnv;
    }
    setBad('');
    setCheck(undefined);
    const body = {
      id: f.id, title: f.title, description: f.description ?? '', contextSize: Number(f.contextSize),
      inputTokenPricePerM: inPrice.units, outputTokenPricePerM: outPrice.units, status: f.status, upstream,
      // prices the form does not show are kept as they were
      ...(m ? { batchInputTokenPricePerM: m.batchInputTokenPricePerM, batchOutputTokenPricePerM: m.batchOutputTokenPricePerM, cachedInputTokenPricePerM: m.cachedInputTokenPricePerM } : {}),
    };
    void act.run(async () => {
      const saved = await post(`/admin/v1/models?check=${f.check}`, body);
      setCheck({ check: saved.check, id: saved.id });
      onSaved();
    });
  };
  const dollars = (/** @type {string | undefined} */ u) => (u === undefined ? '' : money(u).replace(/^\$/, ''));
  return html`<form onSubmit=${save} aria-label=${m ? `Edit ${m.id}` : 'Add a model'} class="stack">
    <h2>${m ? `Edit ${m.id}` : 'Add a model'}</h2>
    <label>Model id<input name="id" required value=${m?.id} readonly=${!!m} /></label>
    <label>Title<input name="title" required value=${m?.title} /></label>
    <label>Description<input name="description" value=${m?.description} /></label>
    <label>Context (tokens)<input name="contextSize" inputmode="numeric" pattern="[0-9]+" required value=${m?.contextSize ?? 8192} /></label>
    <label>Input price per 1M tokens (USD)<input name="input" inputmode="decimal" required value=${dollars(m?.inputTokenPricePerM)} /></label>
    <label>Output price per 1M tokens (USD)<input name="output" inputmode="decimal" required value=${dollars(m?.outputTokenPricePerM)} /></label>
    <label>Status<select name="status" aria-label="Status" value=${m?.status ?? 'available'}><option>available</option><option>offline</option><option>retired</option></select></label>
    ${several
      ? html`<label>Upstream servers (JSON, in failover order)<textarea name="servers" rows="5">${JSON.stringify(m?.upstream, null, 2)}</textarea></label>`
      : html`<label>Upstream URL (empty: the simulator)<input name="url" type="url" placeholder="http://10.0.0.5:8000/v1" value=${one?.url ?? ''} /></label>
        <label>Upstream model name (empty: the model id)<input name="upstreamModel" value=${one?.model ?? ''} /></label>
        <label>Key from environment variable (optional; else the stored key)<input name="apiKeyEnv" pattern="[A-Z_][A-Z0-9_]*" value=${one?.apiKeyEnv ?? ''} /></label>`}
    <label>Check the upstream<select name="check" aria-label="Check the upstream"><option value="warn">check, save anyway</option><option value="strict">check, save only if it passes</option><option value="off">do not check</option></select></label>
    ${bad && html`<div class="error" role="alert">${bad}</div>`}
    <div class="row"><button class="primary" type="submit" disabled=${act.busy}>Save model</button> <button type="button" onClick=${onCancel}>Close</button></div>
    <${ErrorBox} error=${act.error} />
    ${check && html`<${CheckResult} ...${check} />`}
  </form>`;
}

/** Set or rotate a model's upstream key (write-only), or remove it. @param {{ m: Json, onDone: () => void, onCancel: () => void }} props */
function KeyForm({ m, onDone, onCancel }) {
  const act = useAction();
  const [said, setSaid] = useState('');
  /** @param {Submit} e */
  const save = (e) => {
    const f = fields(e);
    const form = e.currentTarget;
    void act.run(async () => {
      await put(`${modelPath(m.id)}/upstream-key`, { apiKey: f.apiKey });
      form.reset(); // the key is not kept on the page either
      setSaid(`Upstream key of ${m.id} set. It is not shown again.`);
      onDone();
    });
  };
  const remove = () => void act.run(async () => {
    if (!await confirmDialog(`Remove the upstream key of ${m.id}?`, { confirm: 'Remove key', detail: 'Its upstream is called without a key from the next request.' })) return;
    await api('DELETE', `${modelPath(m.id)}/upstream-key`);
    setSaid(`Upstream key of ${m.id} removed.`);
    onDone();
  });
  return html`<form onSubmit=${save} aria-label=${`Upstream key of ${m.id}`} class="stack">
    <h2>Upstream key of ${m.id}</h2>
    <p class="muted">${m.upstreamKey?.set ? `A key is set (set ${when(m.upstreamKey.setAt)}). A new one replaces it.` : 'No key is stored.'} Gantry keeps it sealed and never shows it again.</p>
    <label>Upstream key<input name="apiKey" type="password" autocomplete="off" required /></label>
    <div class="row"><button class="primary" type="submit" disabled=${act.busy}>${m.upstreamKey?.set ? 'Rotate key' : 'Set key'}</button>
      ${m.upstreamKey?.set && html` <button type="button" class="danger" onClick=${remove}>Remove key</button>`} <button type="button" onClick=${onCancel}>Close</button></div>
    ${said && html`<div class="notice" role="status">${said}</div>`}
    <${ErrorBox} error=${act.error} />
  </form>`;
}

/** The catalogue (#/operator/models). */
export function OperatorModels() {
  const [retired, setRetired] = useState(false);
  const state = useLoad(() => get('/admin/v1/models', retired ? { retired: true } : undefined), [retired]);
  const act = useAction();
  const [open, setOpen] = useState(/** @type {{ kind: 'add' } | { kind: 'edit' | 'key', id: string } | undefined} */ (undefined));
  const models = /** @type {Json[]} */ (state.data?.models ?? []);
  const current = open && open.kind !== 'add' ? models.find((m) => m.id === open.id) : undefined;
  /** @param {Json} m */
  const retire = (m) => void act.run(async () => {
    if (!await confirmDialog(`Retire ${m.id}?`, { confirm: 'Retire model', detail: 'It leaves the tenants\' lists and calls for good and no team can have it enabled again; bills already recorded keep naming it.' })) return;
    const { upstreamKey: _k, upstreamHealth: _h, created: _c, ...rest } = m;
    await post('/admin/v1/models?check=off', { ...rest, status: 'retired' });
    state.reload();
  });
  return html`<h2>Models</h2>
    <p class="row"><button type="button" class="primary" onClick=${() => setOpen({ kind: 'add' })}>Add a model</button>
      <label class="check"><input type="checkbox" checked=${retired} onChange=${() => setRetired(!retired)} /> Show retired models</label>
      <button type="button" onClick=${state.reload}>Refresh</button></p>
    ${open?.kind === 'add' && html`<${ModelForm} key="add" m=${undefined} onSaved=${state.reload} onCancel=${() => setOpen(undefined)} />`}
    ${open?.kind === 'edit' && current && html`<${ModelForm} key=${`edit-${current.id}`} m=${current} onSaved=${state.reload} onCancel=${() => setOpen(undefined)} />`}
    ${open?.kind === 'key' && current && html`<${KeyForm} key=${`key-${current.id}`} m=${current} onDone=${state.reload} onCancel=${() => setOpen(undefined)} />`}
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${() => html`<${Table} label="Model catalogue" rows=${models} columns=${/** @type {Columns} */ ([
      { label: 'Model', cell: (m) => html`${m.id}<div class="muted">${m.title}</div>` },
      { label: 'Status', cell: (m) => m.status },
      { label: 'Upstreams', cell: (m) => html`<${Upstreams} m=${m} />` },
      { label: 'Upstream key', cell: (m) => (m.upstreamKey?.set ? `set ${when(m.upstreamKey.setAt)}` : 'not set') },
      { label: 'Upstream health', cell: (m) => html`<${Health} h=${m.upstreamHealth} />` },
      { label: 'Input / 1M', num: true, cell: (m) => money(m.inputTokenPricePerM) }, { label: 'Output / 1M', num: true, cell: (m) => money(m.outputTokenPricePerM) },
      { label: 'Actions', cell: (m) => html`<div class="row">
        <button type="button" aria-label=${`Edit ${m.id}`} onClick=${() => setOpen({ kind: 'edit', id: m.id })}>Edit</button>
        <button type="button" aria-label=${`Upstream key of ${m.id}`} onClick=${() => setOpen({ kind: 'key', id: m.id })}>Key</button>
        ${m.status !== 'retired' && html`<button type="button" class="danger" aria-label=${`Retire ${m.id}`} onClick=${() => retire(m)}>Retire</button>`}</div>` },
    ])} />`}<//>`;
}
