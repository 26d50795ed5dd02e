// @ts-check
// Files and batches: upload a batch input, start a batch from a file on the endpoint chosen,
// the batches with their progress (read again by themselves while one runs) and, for a failed
// one, why; download outputs; delete files. Both lists page on the server (cursor: `after`).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, get, post } from '../api.js';
import { confirmDialog, ErrorBox, Loaded, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const PAGE = 20;
/** The endpoints a batch's lines may call (interface.md, Batch job). */
const ENDPOINTS = ['/v1/chat/completions', '/v1/completions'];
/** Statuses a batch leaves by itself: while one is on the page, the list reads itself again. */
const RUNNING = ['VALIDATING', 'PROGRESS', 'CANCELLING'];
const POLL_MS = 2000;
/** What each status means to the person reading the list. */
const MEANING = /** @type {Record<string, string>} */ ({
  VALIDATING: 'checking the input file', PROGRESS: 'running its requests', COMPLETED: 'done', FAILED: 'failed',
  EXPIRED: 'not finished within its 48 hours', CANCELLING: 'cancelling', CANCELLED: 'cancelled',
});

/** @param {{ data: Json, onNext: (after: string) => void, onFirst: () => void }} props */
function Cursor({ data, onNext, onFirst }) {
  return html`<div class="pager"><button type="button" onClick=${onFirst}>First page</button>
    <button type="button" disabled=${!data.has_more} onClick=${() => onNext(data.data[data.data.length - 1].id)}>Next page</button></div>`;
}

/** A batch's status, and why when it failed (the API's `errors`: each bad line's message, one a line). @param {{ b: Json }} props */
function BatchStatus({ b }) {
  const tone = b.status === 'FAILED' || b.status === 'EXPIRED' ? 'failed' : b.status === 'COMPLETED' ? 'succeeded' : b.status.toLowerCase();
  return html`<span class=${`status ${tone}`}>${b.status}</span> <span class="muted">${MEANING[b.status] ?? ''}</span>
    ${b.status === 'FAILED' && html`<div class="why-failed" aria-label=${`Why batch ${b.id} failed`}>${b.errors || 'no reason was recorded'}</div>`}`;
}

/** A batch page's columns; `cancel` stops one still running. @param {(b: Json) => void} cancel @param {boolean} busy @returns {Columns} */
function batchColumns(cancel, busy) {
  return [
    { label: 'Batch', cell: (b) => html`<code>${b.id}</code><div class="muted">${b.endpoint}</div>` },
    { label: 'Status', cell: (b) => html`<${BatchStatus} b=${b} />` },
    { label: 'Progress', cell: (b) => { const c = b.request_counts; return html`<progress max=${c.total || 1} value=${c.completed + c.failed} aria-label=${`Progress of ${b.id}`}></progress> ${c.completed + c.failed}/${c.total}${c.failed ? ` (${c.failed} failed)` : ''}`; } },
    { label: 'Created', cell: (b) => when(b.created_at) },
    { label: 'Output', cell: (b) => html`${b.output_file_id && html`<a href=${`/openai/v1/files/${b.output_file_id}/content`} download>output</a> `}${b.error_file_id && html`<a href=${`/openai/v1/files/${b.error_file_id}/content`} download>errors</a>`}` },
    { label: '', cell: (b) => ['VALIDATING', 'PROGRESS'].includes(b.status) && html`<button type="button" class="danger" onClick=${() => cancel(b)} disabled=${busy}>Cancel</button>` },
  ];
}

/**
 * A file page's columns: download, run a batch input, delete.
 * @param {{ remove: (f: Json) => void, runAsBatch: (f: Json) => void, busy: boolean }} on
 * @returns {Columns}
 */
function fileColumns({ remove, runAsBatch, busy }) {
  return [
    { label: 'File', cell: (f) => html`${f.filename}<div class="muted"><code>${f.id}</code></div>` }, { label: 'Purpose', cell: (f) => f.purpose }, { label: 'Bytes', num: true, cell: (f) => f.bytes },
    { label: 'Created', cell: (f) => when(f.created_at) },
    { label: 'Actions', cell: (f) => html`<a href=${`/openai/v1/files/${f.id}/content`} download>Download</a>
      ${f.purpose === 'batch' && html` <button type="button" onClick=${() => runAsBatch(f)} aria-label=${`Run ${f.filename} as a batch`}>Run as batch…</button>`}
      ${' '}<button type="button" class="danger" onClick=${() => remove(f)} disabled=${busy} aria-label=${`Delete ${f.filename}`}>Delete</button>` },
  ];
}

/**
 * Upload a batch input and start a batch from one: the input chosen (the last uploaded, or the
 * first there is) and the endpoint its lines call.
 * @param {{ act: ReturnType<typeof useAction>, inputs: Json[], chosen: string, choose: (id: string) => void, onBegin: () => void, onUploaded: (f: Json) => void, onStarted: (b: Json) => void }} props
 */
function BatchForms({ act, inputs, chosen, choose, onBegin, onUploaded, onStarted }) {
  const [endpoint, setEndpoint] = useState(/** @type {string} */ (ENDPOINTS[0]));
  /** @param {Submit} e */
  const upload = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    data.set('purpose', 'batch');
    onBegin();
    void act.run(async () => {
      const f = await api('POST', '/openai/v1/files', data);
      form.reset(); // only once uploaded: a refused file stays chosen
      onUploaded(f);
    });
  };
  /** @param {Submit} e */
  const start = (e) => {
    e.preventDefault();
    onBegin();
    void act.run(async () => onStarted(await post('/openai/v1/batches', { input_file_id: chosen, endpoint, completion_window: '48h' })));
  };
  return html`<form class="inline" onSubmit=${upload} aria-label="Upload a batch input">
      <label>Batch input (JSONL)<input type="file" name="file" accept=".jsonl,application/jsonl,text/plain" required /></label>
      <button class="primary" type="submit" disabled=${act.busy}>Upload</button>
    </form>
    <form class="inline" onSubmit=${start} aria-label="Start a batch">
      <label>Input file<select value=${chosen} required disabled=${!inputs.length} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => choose(e.currentTarget.value)}>
        ${inputs.length ? inputs.map((f) => html`<option value=${f.id}>${f.filename} (${f.metadata?.total_requests ?? '?'} requests)</option>`) : html`<option value="">upload a batch input first</option>`}
      </select></label>
      <label>Endpoint<select value=${endpoint} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => setEndpoint(e.currentTarget.value)}>
        ${ENDPOINTS.map((p) => html`<option value=${p}>${p}</option>`)}</select></label>
      <button class="primary" type="submit" disabled=${act.busy || !chosen}>Start batch</button>
      <span class="muted">Runs within 48 hours; each line is billed as the call it makes.</span>
    </form>`;
}

/** Reads `state` again every POLL_MS while `running` (and not already loading). @param {boolean} running @param {ReturnType<typeof useLoad>} state */
function useRefreshWhile(running, state) {
  useEffect(() => {
    if (!running || state.loading) return undefined;
    const t = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [running, state.loading, state.data]);
}

export function FilesBatches() {
  const [fileAfter, setFileAfter] = useState('');
  const [batchAfter, setBatchAfter] = useState('');
  const [inputFile, setInputFile] = useState('');
  const [notice, setNotice] = useState('');
  const act = useAction();
  const files = useLoad(() => get('/openai/v1/files', { limit: PAGE, after: fileAfter }), [fileAfter]);
  const batches = useLoad(() => get('/openai/v1/batches', { limit: PAGE, after: batchAfter }), [batchAfter]);
  const running = batches.data?.data.some((/** @type {Json} */ b) => RUNNING.includes(b.status));
  useRefreshWhile(running, batches);
  const inputs = (files.data?.data ?? []).filter((/** @type {Json} */ f) => f.purpose === 'batch');
  const chosen = inputs.some((/** @type {Json} */ f) => f.id === inputFile) ? inputFile : inputs[0]?.id ?? '';
  /** @param {Json} b */
  const cancel = (b) => void act.run(async () => {
    if (!await confirmDialog(`Cancel the batch ${b.id}? Requests not yet sent are dropped; answered ones stay in its output.`, { confirm: 'Cancel batch', cancel: 'Keep it running' })) return;
    await post(`/openai/v1/batches/${encodeURIComponent(b.id)}/cancel`);
    batches.reload();
  });
  /** @param {Json} f */
  const remove = (f) => void act.run(async () => {
    if (!await confirmDialog(`Delete the file ${f.filename}?`, { confirm: 'Delete file', detail: 'Its bytes are removed; a batch that used it keeps its results.' })) return;
    await api('DELETE', `/openai/v1/files/${encodeURIComponent(f.id)}`);
    setNotice(`Deleted ${f.filename}.`);
    files.reload();
  });
  /** @param {Json} f */
  const runAsBatch = (f) => {
    setInputFile(f.id);
    /** @type {HTMLElement | null} */ (document.querySelector('form[aria-label="Start a batch"] select'))?.focus();
  };
  /** @param {Json} f */
  const uploaded = (f) => { setInputFile(f.id); setNotice(`Uploaded ${f.filename}.`); files.reload(); };
  /** @param {Json} b */
  const started = (b) => { setNotice(`Batch ${b.id} started on ${b.endpoint}.`); setBatchAfter(''); batches.reload(); };
  return html`<h1>Files and batches</h1>
    <${BatchForms} act=${act} inputs=${inputs} chosen=${chosen} choose=${setInputFile} onBegin=${() => setNotice('')} onUploaded=${uploaded} onStarted=${started} />
    <${ErrorBox} error=${act.error} />
    ${notice && !act.error && html`<p class="notice" role="status">${notice}</p>`}
    <h2>Batches</h2>
    <div class="row"><button type="button" onClick=${batches.reload}>Refresh</button>
      ${running && html`<span class="muted" role="status">A batch is running: this list reads itself again every ${POLL_MS / 1000} s.</span>`}</div>
    <${Loaded} state=${batches}>${(/** @type {Json} */ d) => html`<${Table} label="Batches" rows=${d.data} empty="No batches." columns=${batchColumns(cancel, act.busy)} />
      <${Cursor} data=${d} onNext=${setBatchAfter} onFirst=${() => setBatchAfter('')} />`}<//>
    <h2>Files</h2>
    <${Loaded} state=${files}>${(/** @type {Json} */ d) => html`<${Table} label="Files" rows=${d.data} empty="No files." columns=${fileColumns({ remove, runAsBatch, busy: act.busy })} />
      <${Cursor} data=${d} onNext=${setFileAfter} onFirst=${() => setFileAfter('')} />`}<//>`;
}
