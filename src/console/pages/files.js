// @ts-check
// Files and batches: upload a batch input, the batches with their progress, download
// outputs. Both lists page on the server (cursor: `after`).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, get, post } from '../api.js';
import { ErrorBox, Loaded, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const PAGE = 20;

/** @param {{ data: Json, onNext: (after: string) => void, onFirst: () => void }} props */
function Cursor({ data, onNext, onFirst }) {
  return html`<div class="pager"><button type="button" onClick=${onFirst}>First page</button>
    <button type="button" disabled=${!data.has_more} onClick=${() => onNext(data.data[data.data.length - 1].id)}>Next page</button></div>`;
}

export function FilesBatches() {
  const [fileAfter, setFileAfter] = useState('');
  const [batchAfter, setBatchAfter] = useState('');
  const act = useAction();
  const files = useLoad(() => get('/openai/v1/files', { limit: PAGE, after: fileAfter }), [fileAfter]);
  const batches = useLoad(() => get('/openai/v1/batches', { limit: PAGE, after: batchAfter }), [batchAfter]);
  /** @param {Submit} e */
  const upload = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    data.set('purpose', 'batch');
    void act.run(async () => { await api('POST', '/openai/v1/files', data); form.reset(); files.reload(); });
  };
  /** @param {Json} f */
  const startBatch = (f) => void act.run(async () => { await post('/openai/v1/batches', { input_file_id: f.id, endpoint: '/v1/chat/completions', completion_window: '48h' }); batches.reload(); });
  /** @param {Json} b */
  const cancel = (b) => void act.run(async () => { await post(`/openai/v1/batches/${encodeURIComponent(b.id)}/cancel`); batches.reload(); });
  return html`<h1>Files and batches</h1>
    <form class="inline" onSubmit=${upload} aria-label="Upload a batch input">
      <label>Batch input (JSONL)<input type="file" name="file" accept=".jsonl,application/jsonl,text/plain" required /></label>
      <button class="primary" type="submit" disabled=${act.busy}>Upload</button>
    </form>
    <${ErrorBox} error=${act.error} />
    <h2>Batches</h2>
    <${Loaded} state=${batches}>${(/** @type {Json} */ d) => html`<${Table} label="Batches" rows=${d.data} empty="No batches." columns=${/** @type {Columns} */ ([
      { label: 'Batch', cell: (b) => b.id }, { label: 'Status', cell: (b) => b.status },
      { label: 'Progress', cell: (b) => { const c = b.request_counts; return html`<progress max=${c.total || 1} value=${c.completed + c.failed}></progress> ${c.completed + c.failed}/${c.total}${c.failed ? ` (${c.failed} failed)` : ''}`; } },
      { label: 'Created', cell: (b) => when(b.created_at) },
      { label: 'Output', cell: (b) => html`${b.output_file_id && html`<a href=${`/openai/v1/files/${b.output_file_id}/content`} download>output</a> `}${b.error_file_id && html`<a href=${`/openai/v1/files/${b.error_file_id}/content`} download>errors</a>`}` },
      { label: '', cell: (b) => ['VALIDATING', 'PROGRESS'].includes(b.status) && html`<button type="button" class="danger" onClick=${() => cancel(b)}>Cancel</button>` },
    ])} /><${Cursor} data=${d} onNext=${setBatchAfter} onFirst=${() => setBatchAfter('')} />`}<//>
    <h2>Files</h2>
    <${Loaded} state=${files}>${(/** @type {Json} */ d) => html`<${Table} label="Files" rows=${d.data} empty="No files." columns=${/** @type {Columns} */ ([
      { label: 'File', cell: (f) => f.filename }, { label: 'Purpose', cell: (f) => f.purpose }, { label: 'Bytes', num: true, cell: (f) => f.bytes },
      { label: 'Created', cell: (f) => when(f.created_at) },
      { label: '', cell: (f) => html`<a href=${`/openai/v1/files/${f.id}/content`} download>Download</a> ${f.purpose === 'batch' && html`<button type="button" onClick=${() => startBatch(f)}>Run as batch</button>`}` },
    ])} /><${Cursor} data=${d} onNext=${setFileAfter} onFirst=${() => setFileAfter('')} />`}<//>`;
}
