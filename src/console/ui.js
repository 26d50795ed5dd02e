// @ts-check
// Small shared pieces of the console's pages: data loading with visible errors, amounts
// shown (the arithmetic is money.js's), times, tables with server paging (table.js), live logs.
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { money, usd } from './money.js';
import { csvText, pageCount, scrollEdges } from './table.js';

/**
 * An error as ErrorBox shows it (an ApiError, or any other thrown while loading or acting);
 * `network` when no answer came (api.js NetworkError).
 * @typedef {{ message: string, reason?: string, status?: number, network?: boolean }} Shown
 */

/**
 * The loads that failed because the server could not be reached, each with its retry: the
 * shell shows one notice with one Retry for all of them (NetworkBanner), not an error per table.
 */
const unreachable = signal(/** @type {Map<object, () => void>} */ (new Map()));
/** @type {(key: object, retry?: () => void) => void} */
function markUnreachable(key, retry) {
  const had = unreachable.value.has(key);
  if (!retry && !had) return;
  const next = new Map(unreachable.value);
  if (retry) next.set(key, retry);
  else next.delete(key);
  unreachable.value = next;
}

/** The one notice of an unreachable server, with a Retry that loads again everything that failed so. */
export function NetworkBanner() {
  const failed = unreachable.value;
  if (!failed.size) return null;
  const retry = () => { const all = [...failed.values()]; unreachable.value = new Map(); for (const r of all) r(); };
  return html`<div class="error network" role="alert"><strong>Gantry could not be reached</strong>: the network or the server is down. ${' '}
    <button type="button" onClick=${retry}>Retry</button></div>`;
}
/**
 * @template T
 * @typedef {{ loading: boolean, data: T | undefined, error: Shown | undefined }} Load
 */
/**
 * @template T
 * @typedef {Load<T> & { reload: () => void }} LoadState
 */

/**
 * Loads with `fn` when `deps` change; `reload()` loads again. Errors are kept to be shown.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {unknown[]} [deps]
 * @returns {LoadState<T>}
 */
export function useLoad(fn, deps = []) {
  const [state, setState] = useState(/** @type {Load<T>} */ ({ loading: true, data: undefined, error: undefined }));
  const [n, setN] = useState(0);
  const reload = useCallback(() => setN((x) => x + 1), []);
  const key = useRef({}).current;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then((data) => { if (!live) return; markUnreachable(key); setState({ loading: false, data, error: undefined }); },
      (error) => { if (!live) return; markUnreachable(key, error?.network ? reload : undefined); setState({ loading: false, data: undefined, error }); });
    return () => { live = false; };
  }, [...deps, n]);
  useEffect(() => () => markUnreachable(key), []); // a page left: nothing of it to retry
  return { ...state, reload };
}

/** Runs an action, showing its error (never swallowed) until the next one. */
export function useAction() {
  const [error, setError] = useState(/** @type {Shown | undefined} */ (undefined));
  const [busy, setBusy] = useState(false);
  /**
   * @template R
   * @param {() => Promise<R>} fn
   * @returns {Promise<R | undefined>}
   */
  const run = async (fn) => {
    setError(undefined);
    setBusy(true);
    try { return await fn(); } catch (e) { setError(/** @type {Shown} */ (e)); return undefined; } finally { setBusy(false); }
  };
  return { error, busy, run, clear: () => setError(undefined) };
}

/**
 * An error, as text (a message is never markup); `onRetry` adds a Retry button.
 * @param {{ error: Shown | undefined | null, onRetry?: () => void }} props
 */
export function ErrorBox({ error, onRetry }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><strong>${error.network ? 'Not reached' : error.reason || 'Error'}</strong>${error.status ? ` (${error.status})` : ''}: ${error.message}
    ${onRetry && html` <button type="button" onClick=${onRetry}>Retry</button>`}</div>`;
}

/**
 * What was loaded, once it is; an error with a Retry when the load failed. When the server
 * could not be reached, the shell's one notice says so (NetworkBanner) and this says only that
 * this part is not loaded.
 * @template T
 * @param {{ state: Load<T> & { reload?: () => void }, children: (data: T) => unknown }} props
 */
export function Loaded({ state, children }) {
  if (state.error?.network) return html`<p class="muted not-loaded">Not loaded: Gantry could not be reached (see the notice above).</p>`;
  if (state.error) return html`<${ErrorBox} error=${state.error} onRetry=${state.reload} />`;
  if (state.loading && state.data === undefined) return html`<p class="muted" aria-busy="true">Loading…</p>`;
  return children(/** @type {T} */ (state.data));
}

/**
 * A time (seconds, as a number or digits, or an ISO date) as `YYYY-MM-DD HH:MM UTC`: every
 * time in the console is UTC, as the API's bills and periods are, and says so.
 * @param {string | number | null | undefined} v
 */
export function when(v) {
  if (!v) return '—';
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) * 1000 : typeof v === 'number' ? v * 1000 : Date.parse(v);
  return Number.isFinite(n) ? `${new Date(n).toISOString().replace('T', ' ').slice(0, 16)} UTC` : String(v);
}

/**
 * uPlot options for a chart over time: its axis and legend in UTC, as every time in the
 * console, and the time axis labelled so (uPlot draws in the browser's zone otherwise).
 * @param {typeof import('uplot')} UPlot
 * The axis label is drawn on the canvas; the legend's time column (`series`) says it in text.
 * @returns {{ tzDate: (ts: number) => Date, axis: import('uplot').Axis, series: import('uplot').Series }}
 */
export function utcTime(UPlot) {
  return { tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'), axis: { stroke: 'currentColor', label: 'Time (UTC)' }, series: { label: 'Time (UTC)' } };
}

/**
 * Draws a uPlot chart into `ref`'s element once uPlot's module has loaded (it is loaded with
 * the charts only), for an effect to return the cleanup of. A person who moves on before it
 * loads has unmounted the chart: the late import is then ignored, as is its failure (the
 * element was gone, and `el.clientWidth` once threw on the next page, issue 45).
 * @param {{ current: HTMLElement | null | undefined }} ref
 * @param {(UPlot: typeof import('uplot'), el: HTMLElement) => import('uplot')} draw
 * @param {(e: Shown) => void} failed shows that the chart could not load
 * @returns {() => void} destroys the chart, or forgets it if not drawn yet
 */
export function drawChart(ref, draw, failed) {
  let live = true;
  /** @type {import('uplot') | undefined} */
  let plot;
  import('uplot').then(({ default: UPlot }) => {
    const el = ref.current;
    if (!live || !el?.isConnected) return;
    plot = draw(UPlot, el);
    el.dataset.drawn = 'true';
  }, (/** @type {Shown} */ e) => { if (live) failed(e); });
  return () => {
    live = false;
    plot?.destroy();
  };
}

/**
 * Asks before something that cannot be taken back, in a modal dialog (focus inside it, Escape
 * or Cancel says no). The question is text, never markup.
 * @param {string} question
 * @param {{ confirm?: string, cancel?: string, detail?: string }} [opts] the two buttons' labels, a second line
 * @returns {Promise<boolean>}
 */
export function confirmDialog(question, { confirm = 'Confirm', cancel = 'Cancel', detail } = {}) {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    dialog.className = 'confirm';
    const p = document.createElement('p');
    p.textContent = question;
    p.id = `confirm-${Date.now()}`;
    dialog.setAttribute('aria-labelledby', p.id);
    dialog.append(p);
    if (detail) {
      const d = document.createElement('p');
      d.className = 'muted';
      d.textContent = detail;
      dialog.append(d);
    }
    const buttons = document.createElement('div');
    buttons.className = 'row';
    const no = document.createElement('button');
    no.type = 'button';
    no.textContent = cancel;
    const yes = document.createElement('button');
    yes.type = 'button';
    yes.className = 'danger';
    yes.textContent = confirm;
    buttons.append(no, yes);
    dialog.append(buttons);
    const back = /** @type {HTMLElement | null} */ (document.activeElement);
    /** @param {boolean} answer */
    const done = (answer) => { dialog.close(); dialog.remove(); back?.focus?.(); resolve(answer); };
    no.onclick = () => done(false);
    yes.onclick = () => done(true);
    dialog.oncancel = (e) => { e.preventDefault(); done(false); };
    document.body.append(dialog);
    dialog.showModal();
    no.focus(); // the safe answer first
  });
}

/**
 * Copies `text` to the clipboard; says whether it did (where the browser refuses, the text is
 * selected on the page instead, for Ctrl+C). The outcome stays until the next click: no timer.
 * @param {{ text: string, label: string }} props
 */
export function CopyButton({ text, label }) {
  const [said, setSaid] = useState('');
  const copy = async (/** @type {MouseEvent} */ e) => {
    // read before the await: an event's currentTarget is null once its dispatch is over
    const code = /** @type {HTMLElement} */ (e.currentTarget).parentElement?.querySelector('code');
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      if (code) getSelection()?.selectAllChildren(code);
      setSaid('Not copied by the browser: it is selected, press Ctrl+C.');
    }
  };
  return html`<button type="button" onClick=${copy}>${label}</button>${said && html` <span role="status">${said}</span>`}`;
}

/** @param {{ value: string }} props */
export function Status({ value }) {
  return html`<span class=${`status ${value}`}>${value}</span>`;
}

/**
 * @template T
 * @typedef {{ label: string, cell: (row: T) => unknown, num?: boolean }} Column
 */
/**
 * A table: columns [{label, cell(row), num?}]; `rowClass(row)`, a class of a row's <tr>. A
 * table wider than its box scrolls inside it, and shows so (ScrollBox).
 * @template T
 * @param {{ rows: T[], columns: Column<T>[], empty?: string, label?: string, rowClass?: (row: T) => string | undefined }} props
 */
export function Table({ rows, columns, empty = 'Nothing yet.', label, rowClass }) {
  if (!rows.length) return html`<p class="muted">${empty}</p>`;
  return html`<${ScrollBox} label=${label}><table aria-label=${label}>
    <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}>${c.label}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr class=${rowClass?.(r)}>${columns.map((c) => html`<td class=${c.num ? 'num' : ''}>${c.cell(r)}</td>`)}</tr>`)}</tbody>
  </table><//>`;
}

/**
 * The box a table scrolls in, marked with the sides that hide more (`data-more="left right"`:
 * a shadow at each, app.css) and a hint above it while anything is hidden: on a phone a wide
 * table otherwise looks cut off (issue 45). Measured again as it scrolls and resizes.
 * @param {{ label?: string | undefined, children: unknown }} props
 */
function ScrollBox({ label, children }) {
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  const [more, setMore] = useState({ left: false, right: false });
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const measure = () => setMore((was) => { const now = scrollEdges(el); return now.left === was.left && now.right === was.right ? was : now; });
    measure();
    const seen = new ResizeObserver(measure);
    seen.observe(el);
    if (el.firstElementChild) seen.observe(el.firstElementChild);
    el.addEventListener('scroll', measure, { passive: true });
    return () => { seen.disconnect(); el.removeEventListener('scroll', measure); };
  }, []);
  const sides = [more.left && 'left', more.right && 'right'].filter(Boolean).join(' ');
  return html`${sides && html`<p class="scroll-hint">${more.left ? '← ' : ''}${label ? `${label}: ` : ''}scroll sideways for more columns${more.right ? ' →' : ''}</p>`}
    <div class="table-box" data-more=${sides || undefined}><div class="table-wrap" ref=${box}>${children}</div></div>`;
}

/**
 * Page controls for a list the server pages (one request per page).
 * @param {{ page: number, pageSize: number, total: number, onPage: (page: number) => void }} props
 */
export function Pager({ page, pageSize, total, onPage }) {
  const pages = pageCount(total, pageSize);
  return html`<div class="pager">
    <button type="button" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>Previous</button>
    <span>Page ${page} of ${pages} (${total} in all)</span>
    <button type="button" disabled=${page >= pages} onClick=${() => onPage(page + 1)}>Next</button>
  </div>`;
}

/**
 * A page's props: the rest of the route (`#/instances/<id>`: args ['<id>']).
 * @typedef {{ args: string[] }} PageProps
 */

/**
 * A form's submit event: its target and currentTarget are the form.
 * @typedef {SubmitEvent & { target: HTMLFormElement, currentTarget: HTMLFormElement }} Submit
 */
/**
 * An event of a form control: its currentTarget is the control.
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {Event & { currentTarget: E }} On
 */

/**
 * Reads a form's fields as an object (on its submit event). The forms read this way have
 * text fields only: a file is read from its input.
 * @param {Event} e
 * @returns {Record<string, string>}
 */
export function fields(e) {
  e.preventDefault();
  return /** @type {Record<string, string>} */ (Object.fromEntries(new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)).entries()));
}

/**
 * Offers rows as a CSV file download.
 * @param {string} name
 * @param {Record<string, unknown>[]} rows
 */
export function downloadCsv(name, rows) {
  if (!rows[0]) return;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([csvText(rows)], { type: 'text/csv' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/**
 * Follows a log over server-sent events; the browser sends the session cookie and resumes with Last-Event-ID.
 * @param {{ url: string }} props
 */
export function LiveLog({ url }) {
  const [lines, setLines] = useState(/** @type {string[]} */ ([]));
  const [status, setStatus] = useState('connecting');
  const [attempt, setAttempt] = useState(0);
  const box = useRef(/** @type {HTMLPreElement | undefined} */ (undefined));
  useEffect(() => {
    const es = new EventSource(url);
    // The server ends a follow when what it follows ends (a stopped worker, a removed
    // instance); EventSource would reconnect to it every few seconds forever. So a stream that
    // ends twice in a row with no new line is taken as over, and closed; Reconnect opens it again.
    let fruitless = 0;
    es.onopen = () => setStatus('live');
    es.onmessage = (m) => { fruitless = 0; setLines((l) => [...l.slice(-999), m.data]); };
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) return setStatus('closed');
      if (++fruitless < 3) return setStatus('reconnecting');
      es.close();
      setStatus('ended');
    };
    return () => es.close();
  }, [url, attempt]);
  useEffect(() => { if (box.current) box.current.scrollTop = box.current.scrollHeight; }, [lines]);
  const over = status === 'ended' || status === 'closed';
  return html`<p class="muted" role="status">Log: ${status === 'ended' ? 'ended, no longer followed (what it follows has stopped)' : status}, ${lines.length} lines
      ${over && html` <button type="button" title="Follow the log again from its tail" onClick=${() => { setStatus('connecting'); setLines([]); setAttempt((n) => n + 1); }}>Reconnect</button>`}</p>
    <pre class="log" ref=${box} aria-label="Live log" aria-live="polite" data-lines=${lines.length}>${lines.join('\n')}</pre>`;
}

/**
 * An amount in dollars, two decimals; the exact amount on hover (title) when rounding hid part of it.
 * @param {{ units: string | number | bigint | null | undefined }} props
 */
export function Money({ units }) {
  if (units === undefined || units === null || units === '') return html`<span class="money">—</span>`;
  return html`<span class="money" title=${`exactly ${money(units)}`}>${usd(units)}</span>`;
}

/**
 * The API's refusal (an ApiError naming a field) as a message at one of a form's fields:
 * `names` maps the field names the API uses (`endpoint.workerConfig.minNum`, `budget_limit`)
 * to the form's own.
 * @param {unknown} error
 * @param {Record<string, string>} names
 * @returns {Record<string, string>}
 */
export function refusalAt(error, names) {
  const e = /** @type {{ field?: string, rule?: string, message?: string } | undefined} */ (error);
  const k = e?.field ? names[e.field] : undefined;
  return k ? { [k]: e?.rule || e?.message || 'refused' } : {};
}

/**
 * A form field: its label and control, a hint, and the error at it (the control is marked
 * invalid and described by both). `control` receives the aria attributes to spread.
 * @param {{ id: string, label: string, error?: string, hint?: unknown, control: (attrs: Record<string, string | undefined>) => unknown }} props
 */
export function Field({ id, label, error, hint, control }) {
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return html`<div class="field">
    <label>${label}${control({ 'aria-invalid': error ? 'true' : undefined, 'aria-describedby': described || undefined })}</label>
    ${hint && html`<span class="hint" id=${`${id}-hint`}>${hint}</span>`}
    ${error && html`<span class="field-error" id=${`${id}-error`} role="alert">${error}</span>`}
  </div>`;
}
