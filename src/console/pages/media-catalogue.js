// @ts-check
// The media model catalogue (GET /v3/model) on the Models page: the interface's filters,
// cursor pages (`pagination.cursor` from `next_cursor`), records with their cover, and the
// team's own records: an upload form with progress (POST /v3/model/upload) and delete
// (DELETE /v3/model/{id}, the team's private records only; the API allows both to every role
// that may call models, the same capability that shows this page).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, can, get } from '../api.js';
import { uploadWithProgress } from '../upload.js';
import { ErrorBox, Loaded, Status, Table, useAction, useLoad } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../api.js').Query} Query */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const PAGE = 20;
const TYPES = [['checkpoint', 'Checkpoint'], ['lora', 'LoRA'], ['vae', 'VAE'], ['controlnet', 'ControlNet'], ['upscaler', 'Upscaler'], ['textualinversion', 'Textual Inversion']];
const SOURCES = ['civitai', 'training', 'uploading'];

/**
 * One catalogue page and which of its records are the team's own (private).
 * @param {Query} filters
 * @param {string} cursor
 */
async function loadPage(filters, cursor) {
  const q = { ...filters, 'pagination.limit': PAGE, 'pagination.cursor': cursor };
  const page = await get('/v3/model', q);
  /** @type {string[]} */
  let own = [];
  if (filters['filter.visibility'] === 'private') own = page.models.map((/** @type {Json} */ m) => m.id);
  else if (filters['filter.visibility'] !== 'public' && page.models.length) {
    // A record does not say whose it is. The private records of the same filters after the same
    // cursor, up to the page's last id, are exactly this page's private ones (keyset on id).
    const last = page.models[page.models.length - 1].id;
    own = (await get('/v3/model', { ...q, 'filter.visibility': 'private' })).models.filter((/** @type {Json} */ m) => m.id <= last).map((/** @type {Json} */ m) => m.id);
  }
  return { ...page, own };
}

/**
 * @param {Submit} e
 * @returns {Query}
 */
function readFilters(e) {
  e.preventDefault();
  const f = new FormData(e.currentTarget);
  return /** @type {Query} */ ({
    'filter.visibility': f.get('visibility'), 'filter.source': f.get('source'), 'filter.types': f.getAll('types').join(','),
    'filter.is_sdxl': f.get('is_sdxl'), 'filter.is_inpainting': f.get('is_inpainting') ? 'true' : '', 'filter.query': /** @type {string} */ (f.get('query')).trim(),
  });
}

/** @param {{ onApply: (filters: Query) => void }} props */
function Filters({ onApply }) {
  return html`<form class="stack" onSubmit=${(/** @type {Submit} */ e) => onApply(readFilters(e))} aria-label="Filter the catalogue">
    <div class="row">
      <label>Search<input name="query" maxlength="255" placeholder="name, file or tag" /></label>
      <label>Visibility<select name="visibility"><option value="">all</option><option value="public">public</option><option value="private">the team's</option></select></label>
      <label>Source<select name="source"><option value="">any</option>${SOURCES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
      <label>SDXL<select name="is_sdxl"><option value="">either</option><option value="true">only SDXL</option><option value="false">no SDXL</option></select></label>
    </div>
    <fieldset><legend>Types (none ticked: all)</legend>
      ${TYPES.map(([v, label]) => html`<label class="check"><input type="checkbox" name="types" value=${v} /> ${label}</label>`)}
      <label class="check"><input type="checkbox" name="is_inpainting" /> only inpainting checkpoints</label>
    </fieldset>
    <div><button type="submit">Apply filters</button></div>
  </form>`;
}

/** @param {{ onDone: (record: Json) => void }} props */
function Upload({ onDone }) {
  const act = useAction();
  const [progress, setProgress] = useState(/** @type {{ sent: number, total: number } | undefined} */ (undefined));
  /** @param {Submit} e */
  const submit = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    // the fields, then the file (the API refuses a field after the file); empty fields are left out
    const body = new FormData();
    for (const k of ['type', 'name', 'base_model', 'base_model_type', 'tags', 'cover_url']) {
      const v = String(f.get(k) ?? '').trim();
      if (v) body.append(k, v);
    }
    if (f.get('is_sdxl')) body.append('is_sdxl', 'true');
    body.append('file', /** @type {File} */ (f.get('file')));
    void act.run(async () => {
      setProgress({ sent: 0, total: 1 });
      try {
        const rec = await uploadWithProgress('/v3/model/upload', body, (sent, total) => setProgress({ sent, total }));
        form.reset();
        onDone(rec);
      } finally {
        setProgress(undefined);
      }
    });
  };
  return html`<h3>Upload a private model</h3>
    <form class="stack" onSubmit=${submit} aria-label="Upload a private model">
      <div class="row">
        <label>Model type<select name="type" required>${TYPES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}</select></label>
        <label>Display name<input name="name" maxlength="255" placeholder="the file's name" /></label>
        <label>Base model<input name="base_model" maxlength="64" placeholder="SD 1.5" /></label>
        <label>Base model type<select name="base_model_type"><option>Standard</option><option>Inpainting</option></select></label>
      </div>
      <div class="row">
        <label>Tags<input name="tags" maxlength="2000" placeholder="comma, separated" /></label>
        <label>Cover URL<input name="cover_url" type="url" maxlength="2048" placeholder="https://…" /></label>
        <label class="check"><input type="checkbox" name="is_sdxl" /> SDXL</label>
      </div>
      <label>Model file<input type="file" name="file" required /></label>
      <div><button class="primary" type="submit" disabled=${act.busy}>Upload</button>
        ${progress && html` <progress max=${progress.total} value=${progress.sent}></progress> <span role="status">${Math.floor((100 * progress.sent) / progress.total)} % sent</span>`}</div>
    </form>
    <${ErrorBox} error=${act.error} />`;
}

/** @param {{ m: Json }} props */
function Record({ m }) {
  return html`<strong>${m.name}</strong><div><code>${m.sd_name_in_api}</code></div>${m.tags.length ? html`<div class="muted">${m.tags.join(', ')}</div>` : ''}`;
}

export function MediaCatalogue() {
  const [filters, setFilters] = useState(/** @type {Query} */ ({}));
  const [cursors, setCursors] = useState(['']); // the cursor of every page up to this one
  const [uploaded, setUploaded] = useState(/** @type {Json} */ (undefined));
  const cursor = /** @type {string} */ (cursors[cursors.length - 1]); // one at least
  const act = useAction();
  const state = useLoad(() => loadPage(filters, cursor), [filters, cursor]);
  /** @param {Query} f */
  const apply = (f) => { setFilters(f); setCursors(['']); };
  /** @param {Json} m */
  const remove = (m) => void act.run(async () => {
    if (!confirm(`Delete ${m.name}? Its file goes with it.`)) return;
    await api('DELETE', `/v3/model/${m.id}`);
    state.reload();
  });
  return html`<h2>Media models</h2>
    <p class="muted">Image models tasks can use (txt2img takes a checkpoint's API name): the operator's public records and the team's own uploads.</p>
    <${Filters} onApply=${apply} />
    <${ErrorBox} error=${act.error} />
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Media models" rows=${d.models} empty="No record matches." columns=${/** @type {Columns} */ ([
        { label: 'Cover', cell: (m) => (m.cover_url ? html`<img class="cover" src=${m.cover_url} alt=${`Cover of ${m.name}`} loading="lazy" width="56" height="56" />` : html`<span class="muted">—</span>`) },
        { label: 'Model', cell: (m) => html`<${Record} m=${m} />` },
        { label: 'Type', cell: (m) => m.type.display_name },
        { label: 'Base model', cell: (m) => html`${m.base_model || '—'}<div class="muted">${m.base_model_type}${m.is_sdxl ? ' · SDXL' : ''}</div>` },
        { label: 'Status', cell: (m) => html`<${Status} value=${m.status === 1 ? 'available' : 'uploading'} />` },
        { label: 'Source', cell: (m) => html`${m.source}<div class="muted">${d.own.includes(m.id) ? "the team's" : 'public'}</div>` },
        { label: 'Actions', cell: (m) => html`${m.download_url && html`<a href=${m.download_url} download=${m.sd_name}>Download</a>`}
          ${d.own.includes(m.id) && can('callModels') && html` <button type="button" class="danger" onClick=${() => remove(m)} disabled=${act.busy}>Delete</button>`}` },
      ])} />
      <div class="pager">
        <button type="button" disabled=${cursors.length < 2} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous page</button>
        <button type="button" disabled=${!d.pagination.next_cursor} onClick=${() => setCursors([...cursors, d.pagination.next_cursor])}>Next page</button>
        <span class="muted">Page ${cursors.length}</span>
      </div>`}<//>
    ${can('callModels') && html`<${Upload} onDone=${(/** @type {Json} */ rec) => { setUploaded(rec); state.reload(); }} />`}
    ${uploaded && html`<p class="notice" role="status">Uploaded ${uploaded.name} (<code>${uploaded.sd_name_in_api}</code>, sha256 ${uploaded.hash_sha256.slice(0, 12)}…).</p>`}`;
}
