// @ts-check
// Async tasks (loaded when first opened): create a txt2img task (a checkpoint of the catalogue
// by its sd_name_in_api) or a txt2speech task, and the team's recent tasks (GET
// /v3/async/tasks, Gantry's extension: newest first, cursor pages, a status filter) with
// what each was asked (its prompt or text), their progress and results: the PNGs as images,
// the WAVs as players. The list reads itself again while a task on it is queued or processing.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { ErrorBox, Loaded, Table, useAction, useLoad, when } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const PAGE = 20;
const POLL_MS = 1500;
const STATUSES = [['TASK_STATUS_QUEUED', 'queued'], ['TASK_STATUS_PROCESSING', 'processing'], ['TASK_STATUS_SUCCEED', 'succeeded'], ['TASK_STATUS_FAILED', 'failed']];
/** @type {Record<string, string>} */
const TYPES = { TXT_TO_IMG: 'text to image', TXT_TO_SPEECH: 'text to speech', IMG_TO_IMG: 'image to image' };
/** @param {string} status */
const label = (status) => STATUSES.find(([s]) => s === status)?.[1] ?? status;
/** @param {Json} t */
const open = (t) => t.task.status === 'TASK_STATUS_QUEUED' || t.task.status === 'TASK_STATUS_PROCESSING';

/** The available checkpoints the team sees (every page of the catalogue's checkpoints). */
async function checkpoints() {
  const out = [];
  let cursor = '';
  for (let i = 0; i < 20; i++) {
    const r = await get('/v3/model', { 'filter.types': 'checkpoint', 'pagination.limit': 100, 'pagination.cursor': cursor });
    out.push(...r.models.filter((/** @type {Json} */ m) => m.status === 1));
    cursor = r.pagination.next_cursor;
    if (!cursor) break;
  }
  return out;
}

/** @param {FormDataEntryValue | null | undefined} v */
function num(v) {
  return v === '' || v === null ? undefined : Number(v);
}

/**
 * What the two task forms share: the page's action (its error shown once), and what follows a task created.
 * @typedef {{ act: ReturnType<typeof useAction>, onCreated: (taskId: string) => void }} FormProps
 */

/** @param {FormProps} props */
function Txt2Img({ act, onCreated }) {
  const models = useLoad(checkpoints);
  /** @param {Submit} e */
  const submit = (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget).entries());
    /** @type {Record<string, unknown>} */
    const request = { model_name: f.model_name, prompt: f.prompt, width: num(f.width), height: num(f.height), image_num: num(f.image_num) };
    if (f.seed !== '') request.seed = num(f.seed);
    void act.run(async () => onCreated((await post('/v3/async/txt2img', { request })).task_id));
  };
  return html`<h2>Text to image</h2>
    <${Loaded} state=${models}>${(/** @type {Json} */ list) => (list.length
      ? html`<form class="stack" onSubmit=${submit} aria-label="Create an image task">
        <label>Checkpoint<select name="model_name" required>${list.map((/** @type {Json} */ m) => html`<option value=${m.sd_name_in_api}>${m.name} (${m.sd_name_in_api})</option>`)}</select></label>
        <label>Prompt<textarea name="prompt" required maxlength="1024" rows="2" defaultValue="a lighthouse at dusk"></textarea></label>
        <div class="row">
          <label>Width<input name="width" type="number" min="128" max="2048" step="8" defaultValue="512" required /></label>
          <label>Height<input name="height" type="number" min="128" max="2048" step="8" defaultValue="512" required /></label>
          <label>Images<input name="image_num" type="number" min="1" max="8" defaultValue="1" required /></label>
          <label>Seed<input name="seed" type="number" min="-1" max="4294967295" placeholder="random" /></label>
        </div>
        <div><button class="primary" type="submit" disabled=${act.busy}>Create image task</button></div>
      </form>`
      : html`<p class="muted">No available checkpoint in the catalogue: upload one on the Models page.</p>`)}<//>`;
}

/** @param {FormProps} props */
function Txt2Speech({ act, onCreated }) {
  /** @param {Submit} e */
  const submit = (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(e.currentTarget).entries());
    const request = { voice_id: f.voice_id, language: f.language || undefined, texts: [f.text], speed: num(f.speed) };
    void act.run(async () => onCreated((await post('/v3/async/txt2speech', { request })).task_id));
  };
  return html`<h2>Text to speech</h2>
    <form class="stack" onSubmit=${submit} aria-label="Create a speech task">
      <div class="row">
        <label>Voice<input name="voice_id" required maxlength="64" defaultValue="Emily" /></label>
        <label>Language<input name="language" maxlength="35" defaultValue="en-US" /></label>
        <label>Speed<input name="speed" type="number" min="0.5" max="2" step="0.1" defaultValue="1" /></label>
      </div>
      <label>Text to speak<textarea name="text" required maxlength="10000" rows="2" defaultValue="Hello from Gantry."></textarea></label>
      <div><button class="primary" type="submit" disabled=${act.busy}>Create speech task</button></div>
    </form>`;
}

/** What a task was asked for: the prompt and checkpoint, or the text and voice. @param {{ t: Json }} props */
function Asked({ t }) {
  const i = t.input;
  if (!i) return '—';
  if (!i.texts) { // an image task: its prompt (when it takes one) and checkpoint or operation
    return html`${i.prompt && html`<div class="prompt">${i.prompt}</div>`}
      ${i.negative_prompt && html`<div class="prompt muted">not: ${i.negative_prompt}</div>`}<div class="muted">${i.model_name}</div>`;
  }
  return html`<div class="prompt">${(i.texts ?? []).join('\n')}</div><div class="muted">${i.voice_id}${i.language ? ` · ${i.language}` : ''}</div>`;
}

/** @param {{ t: Json }} props */
function Outputs({ t }) {
  if (!t.images.length && !t.audios.length) return html`<span class=${t.task.status === 'TASK_STATUS_FAILED' ? 'why-failed' : 'muted'}>${t.task.reason || '—'}</span>`;
  return html`<div class="outputs">
    ${t.images.map((/** @type {Json} */ o, /** @type {number} */ i) => html`<a href=${o.image_url} target="_blank" rel="noopener"><img src=${o.image_url} alt=${`Image ${i + 1} of ${t.task.task_id}`} /></a>`)}
    ${t.audios.map((/** @type {Json} */ o, /** @type {number} */ i) => html`<audio controls preload="none" src=${o.audio_url} aria-label=${`Speech ${i + 1} of ${t.task.task_id}`}></audio>`)}
  </div>`;
}

/** @param {{ status: string, setStatus: (status: string) => void, cursors: string[], setCursors: (cursors: string[]) => void, reloadKey: string | undefined }} props */
function TaskList({ status, setStatus, cursors, setCursors, reloadKey }) {
  const cursor = cursors[cursors.length - 1];
  const state = useLoad(() => get('/v3/async/tasks', { limit: PAGE, cursor, status }), [status, cursor, reloadKey]);
  const running = state.data?.tasks.some(open);
  useEffect(() => {
    if (!running || state.loading) return undefined;
    const t = setTimeout(state.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [running, state.loading, state.data]);
  return html`<h2>Recent tasks</h2>
    <div class="row">
      <label>Status<select value=${status} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => { setStatus(e.currentTarget.value); setCursors(['']); }}>
        <option value="">any</option>${STATUSES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
      </select></label>
      <button type="button" onClick=${state.reload}>Refresh</button>
      ${running && html`<span class="muted" role="status">A task is running: this list reads itself again every ${POLL_MS / 1000} s.</span>`}
    </div>
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`
      <${Table} label="Tasks" rows=${d.tasks} empty="No tasks yet." columns=${/** @type {Columns} */ ([
        { label: 'Task', cell: (t) => html`<code>${t.task.task_id}</code><div class="muted">${when(t.created_at)}</div>` },
        { label: 'Type', cell: (t) => TYPES[t.task.task_type] ?? t.task.task_type.toLowerCase().replace(/_/g, ' ') },
        { label: 'Asked', cell: (t) => html`<${Asked} t=${t} />` },
        { label: 'Status', cell: (t) => html`<span class=${`status ${t.task.status}`}>${label(t.task.status)}</span>` },
        { label: 'Progress', cell: (t) => html`<progress max="100" value=${t.task.progress_percent}></progress> ${t.task.progress_percent} %` },
        { label: 'Result', cell: (t) => html`<${Outputs} t=${t} />` },
      ])} />
      <div class="pager">
        <button type="button" disabled=${cursors.length < 2} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous page</button>
        <button type="button" disabled=${!d.pagination.next_cursor} onClick=${() => setCursors([...cursors, d.pagination.next_cursor])}>Next page</button>
      </div>`}<//>`;
}

export function Tasks() {
  const act = useAction();
  const [created, setCreated] = useState(/** @type {string | undefined} */ (undefined));
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState(['']);
  /** @param {string} id */
  const onCreated = (id) => {
    setCreated(id);
    setCursors(['']);
    setStatus('');
  };
  return html`<h1>Async tasks</h1>
    <${Txt2Img} act=${act} onCreated=${onCreated} />
    <${Txt2Speech} act=${act} onCreated=${onCreated} />
    <${ErrorBox} error=${act.error} />
    ${created && html`<p class="notice" role="status">Task <code>${created}</code> created.</p>`}
    <${TaskList} status=${status} setStatus=${setStatus} cursors=${cursors} setCursors=${setCursors} reloadKey=${created} />`;
}
