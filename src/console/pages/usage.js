// Usage and bills: spend over time by category, model or API key (a uPlot chart), the bill
// tables, the monthly statement, CSV export. The bill API answers at most 31 days per query,
// so the chart's range is at most 31 days here.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api.js';
import { downloadCsv, ErrorBox, fields, Loaded, money, Table, useLoad, when } from '../ui.js';

const DAY = 86400;
const GROUPS = { category: 'Category', productName: 'Model or product', apikey: 'API key' };

function dateInput(s) { return new Date(s * 1000).toISOString().slice(0, 10); }
function parseDate(v) { return Math.floor(Date.parse(`${v}T00:00:00Z`) / 1000); }

export function Usage() {
  const now = Math.floor(Date.now() / 1000);
  const [q, setQ] = useState({ from: now - 30 * DAY, to: now, cycle: 'Day', group: 'category' });
  const [err, setErr] = useState();
  const state = useLoad(async () => {
    const query = { cycleType: q.cycle, startTime: q.from, endTime: q.to };
    // the usage bill list requires a category: summary is all of them
    if (q.group !== 'apikey') query.productCategory = 'summary';
    const bills = q.group === 'apikey'
      ? await get('/openapi/v1/billing/apikey/bill/list', query)
      : await get('/openapi/v1/billing/bill/list', query);
    return bills.bills;
  }, [q.from, q.to, q.cycle, q.group]);
  const submit = (e) => {
    const f = fields(e);
    const from = parseDate(f.from);
    const to = parseDate(f.to) + DAY - 1;
    if (!(to > from)) return setErr({ message: 'the range ends before it starts' });
    if (to - from > 31 * DAY) return setErr({ message: 'the bill API answers at most 31 days at a time: choose a shorter range' });
    setErr(undefined);
    setQ({ from, to: Math.min(to, now), cycle: f.cycle, group: f.group });
  };
  return html`<h1>Usage and bills</h1>
    <form class="inline" onSubmit=${submit} aria-label="Usage range">
      <label>From<input type="date" name="from" value=${dateInput(q.from)} required /></label>
      <label>To<input type="date" name="to" value=${dateInput(q.to)} required /></label>
      <label>Per<select name="cycle" value=${q.cycle}><option>Day</option><option>Week</option><option>Month</option></select></label>
      <label>By<select name="group" value=${q.group}>${Object.entries(GROUPS).map(([k, v]) => html`<option value=${k}>${v}</option>`)}</select></label>
      <button type="submit">Show</button>
    </form>
    <${ErrorBox} error=${err} />
    <${Loaded} state=${state}>${(rows) => html`
      <${SpendChart} rows=${rows} group=${q.group} from=${q.from} to=${q.to} />
      <h2>Bills</h2>
      <p><button type="button" disabled=${!rows.length} onClick=${() => downloadCsv(`gantry-usage-${dateInput(q.from)}-${dateInput(q.to)}.csv`, rows)}>Export CSV</button></p>
      <${Table} label="Usage bills" rows=${rows} empty="No usage in this range." columns=${[
        { label: 'From', cell: (b) => when(b.startTime) }, { label: 'Category', cell: (b) => b.category }, { label: 'Product', cell: (b) => b.productName },
        ...(q.group === 'apikey' ? [{ label: 'Key', cell: (b) => b.apikeyName || b.ownerID }] : [{ label: 'Owner', cell: (b) => b.ownerID }]),
        { label: 'Amount', num: true, cell: (b) => money(b.amount) }, { label: 'Paid', num: true, cell: (b) => money(b.payAmount) },
      ]} />`}<//>
    <${Statement} />
    <${FixedTerm} from=${q.from} to=${q.to} />`;
}

const groupOf = (b, group) => (group === 'apikey' ? b.apikeyName || b.ownerID : group === 'productName' ? b.productName : b.category);

/** Spend (amount: cash and vouchers) per bucket and group, drawn by uPlot (loaded with this page only). */
function SpendChart({ rows, group, from, to }) {
  const ref = useRef();
  const [error, setError] = useState();
  useEffect(() => {
    if (!rows.length) return undefined;
    let plot;
    const times = [...new Set(rows.map((b) => Number(b.startTime)))].sort((a, b) => a - b);
    const names = [...new Set(rows.map((b) => groupOf(b, group)))].sort();
    const series = names.map((n) => times.map((t) => rows.filter((b) => Number(b.startTime) === t && groupOf(b, group) === n)
      .reduce((a, b) => a + Number(b.amount) / 10000, 0)));
    const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
    import('uplot').then(({ default: UPlot }) => {
      const width = Math.min(900, ref.current.clientWidth || 600);
      plot = new UPlot({
        width, height: 260, title: `Spend (USD) by ${GROUPS[group].toLowerCase()}`,
        series: [{}, ...names.map((n, i) => ({ label: n, stroke: colors[i % colors.length], width: 2, points: { show: true } }))],
        scales: { x: { time: true, range: [from, to] } },
        axes: [{ stroke: 'currentColor' }, { stroke: 'currentColor', size: 80, values: (_, ticks) => ticks.map((v) => `$${v.toFixed(v !== 0 && Math.abs(v) < 0.01 ? 4 : 2)}`) }],
      }, [times, ...series], ref.current);
      ref.current.dataset.drawn = 'true';
    }, setError);
    return () => plot?.destroy();
  }, [rows, group, from, to]);
  if (!rows.length) return html`<p class="muted">No spend to chart in this range.</p>`;
  return html`<div class="chart" ref=${ref} role="img" aria-label="Spend over time"></div><${ErrorBox} error=${error} />`;
}

function Statement() {
  const state = useLoad(() => get('/openapi/v1/billing/monthly/bill'));
  return html`<h2>Monthly statements</h2><${Loaded} state=${state}>${(d) => html`<${Table} label="Monthly statements" rows=${d.data} empty="No statements yet." columns=${[
    { label: 'Month', cell: (m) => m.billingMonth }, { label: 'Total', num: true, cell: (m) => money(m.totalAmount) },
    { label: 'Vouchers', num: true, cell: (m) => money(m.voucherPayAmount) }, { label: 'Cash', num: true, cell: (m) => money(m.cashPayAmount) },
    { label: 'Owed', num: true, cell: (m) => money(m.debtAmount) }, { label: 'Status', cell: (m) => m.status },
  ]} />`}<//>`;
}

function FixedTerm({ from, to }) {
  const state = useLoad(() => get('/openapi/v1/billing/bill/monthly/list', { startTime: from, endTime: to }), [from, to]);
  return html`<h2>Subscription bills</h2><${Loaded} state=${state}>${(d) => html`<${Table} label="Subscription bills" rows=${d.bills} empty="No subscription bills in this range." columns=${[
    { label: 'Created', cell: (b) => when(b.createTime) }, { label: 'Product', cell: (b) => b.productName }, { label: 'Trade', cell: (b) => b.tradeType },
    { label: 'Cycle', cell: (b) => b.cycle }, { label: 'Paid', num: true, cell: (b) => money(b.payAmount) },
  ]} />`}<//>`;
}
