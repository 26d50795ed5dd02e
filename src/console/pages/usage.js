// @ts-check
// Usage and bills: spend over time by category, model or API key (a uPlot chart over up to a
// year, one query), the bill tables (the bill API answers 31 days per query: the range's last
// 31 days), the monthly statements, CSV export of the bill rows (ISO times, USD). A bill row
// names what it is for (the instance, endpoint or key), not its id; amounts in dollars, exact
// on hover.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { can, get } from '../api.js';
import { downloadCsv, drawChart, ErrorBox, fields, Loaded, Money, Table, useLoad, utcTime, when } from '../ui.js';
import { usdDecimal } from '../money.js';
import { GPU } from './instances.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const DAY = 86400;
/** The chart reaches a year back in one query; the bill tables (the compat API) 31 days. */
const MAX_CHART_DAYS = 366;
const MAX_BILL_DAYS = 31;
const GROUPS = { category: 'Category', model: 'Model or product', apikey: 'API key' };
/** @typedef {keyof typeof GROUPS} Group */

/** @param {number} s */
function dateInput(s) { return new Date(s * 1000).toISOString().slice(0, 10); }
/** @param {string | number} s Unix seconds */
function iso(s) { return new Date(Number(s) * 1000).toISOString(); }

/**
 * The names of what bills are for, by id: API keys (from the key bills of the same range),
 * instances and endpoints (the newest 100 of each: the lists' page limit). An id not found
 * (a media task, a batch, an older instance) is shown as it is.
 * @param {{ startTime: number, endTime: number }} range
 * @returns {Promise<Map<string, string>>}
 */
async function ownerNames(range) {
  const none = { bills: [], instances: [], endpoints: [] };
  const [keys, instances, endpoints] = await Promise.all([
    get('/openapi/v1/billing/apikey/bill/list', { cycleType: 'Month', ...range }).catch(() => none),
    can('readCompute') ? get(`${GPU}/gpu/instances`, { pageSize: 100, pageNum: 1 }).catch(() => none) : none,
    can('readCompute') ? get(`${GPU}/endpoints`, { pageSize: 100, pageNum: 1 }).catch(() => none) : none,
  ]);
  /** @type {Map<string, string>} */
  const names = new Map();
  for (const b of keys.bills) if (b.apikeyName) names.set(b.ownerID, `key ${b.apikeyName}`);
  for (const i of instances.instances) names.set(i.id, `instance ${i.name || i.id}`);
  for (const e of endpoints.endpoints) names.set(e.id, `endpoint ${e.name || e.id}`);
  return names;
}
/** @param {string | undefined} v */
function parseDate(v) { return Math.floor(Date.parse(`${v}T00:00:00Z`) / 1000); }

export function Usage() {
  const now = Math.floor(Date.now() / 1000);
  const [q, setQ] = useState({ from: now - 30 * DAY, to: now, cycle: 'Day', group: 'category' });
  const [err, setErr] = useState(/** @type {import('../ui.js').Shown | undefined} */ (undefined));
  // the dates as typed: a range refused below keeps them (the shown range stays `q`)
  const [draft, setDraft] = useState(() => ({ from: dateInput(q.from), to: dateInput(q.to), cycle: q.cycle, group: q.group }));
  const series = useLoad(() => get('/openapi/v1/billing/spend/series', { cycleType: q.cycle, groupBy: q.group, startTime: q.from, endTime: q.to }).then((r) => r.data),
    [q.from, q.to, q.cycle, q.group]);
  // the bill rows of the range's last 31 days at most (the bill API's limit)
  const billFrom = Math.max(q.from, q.to - MAX_BILL_DAYS * DAY + 1);
  const bills = useLoad(async () => {
    const query = { cycleType: q.cycle, startTime: billFrom, endTime: q.to };
    const [r, names] = await Promise.all([
      q.group === 'apikey' ? get('/openapi/v1/billing/apikey/bill/list', query)
        : get('/openapi/v1/billing/bill/list', { ...query, productCategory: 'summary' }), // summary: every category
      ownerNames({ startTime: billFrom, endTime: q.to }),
    ]);
    return r.bills.map((/** @type {Json} */ b) => ({ ...b, ownerName: b.apikeyName ? `key ${b.apikeyName}` : names.get(b.ownerID) ?? b.ownerID }));
  }, [billFrom, q.to, q.cycle, q.group]);
  /**
   * The bill rows as a spreadsheet reads them: ISO 8601 UTC times, dollars with every digit.
   * @param {Json[]} rows
   */
  const csvRows = (rows) => rows.map((b) => ({
    start_utc: iso(b.startTime), end_utc: iso(b.endTime), category: b.category, product: b.productName,
    for: b.ownerName, for_id: b.ownerID, amount_usd: usdDecimal(b.amount), vouchers_usd: usdDecimal(b.voucherAmount), paid_usd: usdDecimal(b.payAmount),
  }));
  /** @param {Submit} e */
  const submit = (e) => {
    const f = fields(e);
    const from = parseDate(f.from);
    const to = Math.min(parseDate(f.to) + DAY - 1, now);
    if (!(to > from)) return setErr({ message: 'the range ends before it starts' });
    if (to - from > MAX_CHART_DAYS * DAY) return setErr({ message: `choose at most ${MAX_CHART_DAYS} days` });
    setErr(undefined);
    setQ({ from, to, cycle: /** @type {string} */ (f.cycle), group: /** @type {string} */ (f.group) }); // the form's selects
  };
  return html`<h1>Usage and bills</h1>
    <form class="inline" onSubmit=${submit} aria-label="Usage range">
      <label>From (UTC)<input type="date" name="from" value=${draft.from} onInput=${(/** @type {import('../ui.js').On} */ e) => setDraft({ ...draft, from: e.currentTarget.value })} required /></label>
      <label>To (UTC)<input type="date" name="to" value=${draft.to} onInput=${(/** @type {import('../ui.js').On} */ e) => setDraft({ ...draft, to: e.currentTarget.value })} required /></label>
      <label>Per<select name="cycle" value=${draft.cycle} onChange=${(/** @type {import('../ui.js').On<HTMLSelectElement>} */ e) => setDraft({ ...draft, cycle: e.currentTarget.value })}><option>Day</option><option>Week</option><option>Month</option></select></label>
      <label>By<select name="group" value=${draft.group} onChange=${(/** @type {import('../ui.js').On<HTMLSelectElement>} */ e) => setDraft({ ...draft, group: e.currentTarget.value })}>${Object.entries(GROUPS).map(([k, v]) => html`<option value=${k}>${v}</option>`)}</select></label>
      <button type="submit">Show</button>
    </form>
    <${ErrorBox} error=${err} />
    <${Loaded} state=${series}>${(/** @type {Json} */ rows) => html`<${SpendChart} rows=${rows} group=${q.group} from=${q.from} to=${q.to} />`}<//>
    <h2>Bills${billFrom > q.from ? ` (the last ${MAX_BILL_DAYS} days of the range)` : ''}</h2>
    <${Loaded} state=${bills}>${(/** @type {Json} */ rows) => html`
      <p><button type="button" disabled=${!rows.length} onClick=${() => downloadCsv(`gantry-usage-${dateInput(billFrom)}-${dateInput(q.to)}.csv`, csvRows(rows))}>Export CSV</button></p>
      <${Table} label="Usage bills" rows=${rows} empty="No usage in this range." columns=${/** @type {Columns} */ ([
        { label: 'From', cell: (b) => when(b.startTime) }, { label: 'Category', cell: (b) => b.category }, { label: 'Product', cell: (b) => b.productName },
        { label: q.group === 'apikey' ? 'Key' : 'For', cell: (b) => html`<span title=${b.ownerID}>${q.group === 'apikey' ? b.apikeyName || b.ownerID : b.ownerName}</span>` },
        { label: 'Amount', num: true, cell: (b) => html`<${Money} units=${b.amount} />` }, { label: 'Vouchers', num: true, cell: (b) => html`<${Money} units=${b.voucherAmount} />` },
        { label: 'Paid', num: true, cell: (b) => html`<${Money} units=${b.payAmount} />` },
      ])} />`}<//>
    <${Statement} />
    <${FixedTerm} from=${billFrom} to=${q.to} />`;
}

/**
 * Spend (charged: vouchers and cash) per bucket and group, drawn by uPlot (loaded with this page only).
 * @param {{ rows: Json[], group: Group, from: number, to: number }} props
 */
function SpendChart({ rows, group, from, to }) {
  const ref = useRef(/** @type {HTMLDivElement | undefined} */ (undefined));
  const [error, setError] = useState(/** @type {import('../ui.js').Shown | undefined} */ (undefined));
  useEffect(() => {
    if (!rows.length) return undefined;
    const times = [...new Set(rows.map((/** @type {Json} */ b) => Number(b.startTime)))].sort((a, b) => a - b);
    const names = [...new Set(rows.map((/** @type {Json} */ b) => b.group))].sort();
    const at = new Map(rows.map((/** @type {Json} */ b) => [`${b.startTime}|${b.group}`, Number(b.amount) / 10000]));
    const series = names.map((n) => times.map((t) => at.get(`${t}|${n}`) ?? 0));
    const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
    return drawChart(ref, (UPlot, el) => {
      const width = Math.min(900, el.clientWidth || 600);
      const utc = utcTime(UPlot); // the axis in UTC, as the bills' buckets (issue 32, item 8)
      return new UPlot({
        width, height: 260, title: `Spend (USD) by ${GROUPS[group].toLowerCase()}`, tzDate: utc.tzDate,
        series: [utc.series, ...names.map((n, i) => ({ label: n, stroke: colors[i % colors.length], width: 2, points: { show: true } }))],
        scales: { x: { time: true, range: [from, to] } },
        axes: [utc.axis, { stroke: 'currentColor', size: 80, values: (_, ticks) => ticks.map((v) => `$${v.toFixed(v !== 0 && Math.abs(v) < 0.01 ? 4 : 2)}`) }],
      }, [times, ...series], el);
    }, setError);
  }, [rows, group, from, to]);
  if (!rows.length) return html`<p class="muted">No spend to chart in this range.</p>`;
  return html`<div class="chart" ref=${ref} role="img" aria-label="Spend over time"></div><${ErrorBox} error=${error} />`;
}

function Statement() {
  const state = useLoad(() => get('/openapi/v1/billing/monthly/bill'));
  return html`<h2>Monthly statements</h2><${Loaded} state=${state}>${(/** @type {Json} */ d) => html`<${Table} label="Monthly statements" rows=${d.data} empty="No statements yet." columns=${/** @type {Columns} */ ([
    { label: 'Month', cell: (m) => m.billingMonth }, { label: 'Total', num: true, cell: (m) => html`<${Money} units=${m.totalAmount} />` },
    { label: 'Vouchers', num: true, cell: (m) => html`<${Money} units=${m.voucherPayAmount} />` }, { label: 'Cash', num: true, cell: (m) => html`<${Money} units=${m.cashPayAmount} />` },
    { label: 'Owed', num: true, cell: (m) => html`<${Money} units=${m.debtAmount} />` }, { label: 'Status', cell: (m) => m.status },
  ])} />`}<//>`;
}

/** @param {{ from: number, to: number }} props */
function FixedTerm({ from, to }) {
  const state = useLoad(() => get('/openapi/v1/billing/bill/monthly/list', { startTime: from, endTime: to }), [from, to]);
  return html`<h2>Subscription bills</h2><${Loaded} state=${state}>${(/** @type {Json} */ d) => html`<${Table} label="Subscription bills" rows=${d.bills} empty="No subscription bills in this range." columns=${/** @type {Columns} */ ([
    { label: 'Created', cell: (b) => when(b.createTime) }, { label: 'Product', cell: (b) => b.productName }, { label: 'Trade', cell: (b) => b.tradeType },
    { label: 'Cycle', cell: (b) => b.cycle }, { label: 'Paid', num: true, cell: (b) => html`<${Money} units=${b.payAmount} />` },
  ])} />`}<//>`;
}
