// @ts-check
// Small shared pieces of the console's pages: data loading with visible errors, money,
// times, tables with server paging, live logs.
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * An error as ErrorBox shows it (an ApiError, or any other thrown while loading or acting).
 * @typedef {{ message: string, reason?: string, status?: number }} Shown
 */
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
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then((data) => live && setState({ loading: false, data, error: undefined }),
      (error) => live && setState({ loading: false, data: undefined, error }));
    return () => { live = false; };
  }, [...deps, n]);
  return { ...state, reload: useCallback(() => setN((x) => x + 1), []) };
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

/** @param {{ error: Shown | undefined | null }} props */
export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><strong>${error.reason || 'Error'}</strong>${error.status ? ` (${error.status})` : ''}: ${error.message}</div>`;
}

/**
 * @template T
 * @param {{ state: Load<T>, children: (data: T) => unknown }} props
 */
export function Loaded({ state, children }) {
  if (state.error) return html`<${ErrorBox} error=${state.error} />`;
  if (state.loading && state.data === undefined) return html`<p class="muted" aria-busy="true">Loading…</p>`;
  return children(/** @type {T} */ (state.data));
}

/**
 * 1/10000 USD (a string or number) as dollars.
 * @param {string | number | bigint | null | undefined} units
 */
export function money(units) {
  if (units === undefined || units === null || units === '') return '—';
  const n = BigInt(units);
  const neg = n < 0n;
  const a = neg ? -n : n;
  const dollars = a / 10000n;
  const frac = String(a % 10000n).padStart(4, '0').replace(/0{1,2}$/, '');
  return `${neg ? '−' : ''}$${dollars.toLocaleString('en-US')}.${frac.length < 2 ? frac.padEnd(2, '0') : frac}`;
}

/**
 * A time (seconds, as a number or digits, or an ISO date) as `YYYY-MM-DD HH:MM` UTC.
 * @param {string | number | null | undefined} v
 */
export function when(v) {
  if (!v) return '—';
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) * 1000 : typeof v === 'number' ? v * 1000 : Date.parse(v);
  return Number.isFinite(n) ? new Date(n).toISOString().replace('T', ' ').slice(0, 16) : String(v);
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
 * A table: columns [{label, cell(row), num?}]; `rowClass(row)`, a class of a row's <tr>.
 * @template T
 * @param {{ rows: T[], columns: Column<T>[], empty?: string, label?: string, rowClass?: (row: T) => string | undefined }} props
 */
export function Table({ rows, columns, empty = 'Nothing yet.', label, rowClass }) {
  if (!rows.length) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-wrap"><table aria-label=${label}>
    <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}>${c.label}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr class=${rowClass?.(r)}>${columns.map((c) => html`<td class=${c.num ? 'num' : ''}>${c.cell(r)}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

/**
 * Page controls for a list the server pages (one request per page).
 * @param {{ page: number, pageSize: number, total: number, onPage: (page: number) => void }} props
 */
export function Pager({ page, pageSize, total, onPage }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
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
  const cols = Object.keys(rows[0]);
  /** @param {unknown} v */
  const esc = (v) => { const s = v === null || v === undefined ? '' : String(v); return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
  const text = [cols.join(','), ...rows.map((r) => cols.map((c) => esc(r[c])).join(','))].join('\n');
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
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
  const box = useRef(/** @type {HTMLPreElement | undefined} */ (undefined));
  useEffect(() => {
    const es = new EventSource(url);
    es.onopen = () => setStatus('live');
    es.onmessage = (m) => setLines((l) => [...l.slice(-999), m.data]);
    es.onerror = () => setStatus(es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    return () => es.close();
  }, [url]);
  useEffect(() => { if (box.current) box.current.scrollTop = box.current.scrollHeight; }, [lines]);
  return html`<p class="muted" role="status">Log: ${status}, ${lines.length} lines</p>
    <pre class="log" ref=${box} aria-label="Live log" aria-live="polite" data-lines=${lines.length}>${lines.join('\n')}</pre>`;
}
