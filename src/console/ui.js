// Small shared pieces of the console's pages: data loading with visible errors, money,
// times, tables with server paging, live logs.
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** Loads with `fn` when `deps` change; `reload()` loads again. Errors are kept to be shown. */
export function useLoad(fn, deps = []) {
  const [state, setState] = useState({ loading: true, data: undefined, error: undefined });
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
  const [error, setError] = useState();
  const [busy, setBusy] = useState(false);
  const run = async (fn) => {
    setError(undefined);
    setBusy(true);
    try { return await fn(); } catch (e) { setError(e); return undefined; } finally { setBusy(false); }
  };
  return { error, busy, run, clear: () => setError(undefined) };
}

export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><strong>${error.reason || 'Error'}</strong>${error.status ? ` (${error.status})` : ''}: ${error.message}</div>`;
}

export function Loaded({ state, children }) {
  if (state.error) return html`<${ErrorBox} error=${state.error} />`;
  if (state.loading && state.data === undefined) return html`<p class="muted" aria-busy="true">Loading…</p>`;
  return children(state.data);
}

/** 1/10000 USD (a string or number) as dollars. */
export function money(units) {
  if (units === undefined || units === null || units === '') return '—';
  const n = BigInt(units);
  const neg = n < 0n;
  const a = neg ? -n : n;
  const dollars = a / 10000n;
  const frac = String(a % 10000n).padStart(4, '0').replace(/0{1,2}$/, '');
  return `${neg ? '−' : ''}$${dollars.toLocaleString('en-US')}.${frac.length < 2 ? frac.padEnd(2, '0') : frac}`;
}

export function when(v) {
  if (!v) return '—';
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) * 1000 : typeof v === 'number' ? v * 1000 : Date.parse(v);
  return Number.isFinite(n) ? new Date(n).toISOString().replace('T', ' ').slice(0, 16) : String(v);
}

export function Status({ value }) {
  return html`<span class=${`status ${value}`}>${value}</span>`;
}

/** A table: columns [{label, cell(row), num?}]. */
export function Table({ rows, columns, empty = 'Nothing yet.', label }) {
  if (!rows.length) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-wrap"><table aria-label=${label}>
    <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}>${c.label}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${columns.map((c) => html`<td class=${c.num ? 'num' : ''}>${c.cell(r)}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

/** Page controls for a list the server pages (one request per page). */
export function Pager({ page, pageSize, total, onPage }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return html`<div class="pager">
    <button type="button" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>Previous</button>
    <span>Page ${page} of ${pages} (${total} in all)</span>
    <button type="button" disabled=${page >= pages} onClick=${() => onPage(page + 1)}>Next</button>
  </div>`;
}

/** Reads a form's fields as an object. */
export function fields(e) {
  e.preventDefault();
  return Object.fromEntries(new FormData(e.currentTarget).entries());
}

/** Offers rows as a CSV file download. */
export function downloadCsv(name, rows) {
  if (!rows.length) return;
  const cols = Object.keys(rows[0]);
  const esc = (v) => { const s = v === null || v === undefined ? '' : String(v); return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
  const text = [cols.join(','), ...rows.map((r) => cols.map((c) => esc(r[c])).join(','))].join('\n');
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** Follows a log over server-sent events; the browser sends the session cookie and resumes with Last-Event-ID. */
export function LiveLog({ url }) {
  const [lines, setLines] = useState([]);
  const [status, setStatus] = useState('connecting');
  const box = useRef();
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
