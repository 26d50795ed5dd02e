// @ts-check
// Overview: balance, this month's spend by category, budgets with what is left, running
// instances and endpoints, recent failures (failed instances and endpoints not serving).
import { html } from 'htm/preact';
import { can, get, principal } from '../api.js';
import { Loaded, money, Status, Table, useLoad } from '../ui.js';
import { GPU } from './instances.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

const monthStart = () => { const d = new Date(); return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000); };

/** @param {{ items: [string, unknown][] }} props */
function Cards({ items }) {
  return html`<div class="cards">${items.map(([label, value]) => html`<div class="card"><div class="label">${label}</div><div class="value">${value}</div></div>`)}</div>`;
}

export function Overview() {
  const billing = can('readBilling');
  const compute = can('readCompute');
  const state = useLoad(async () => {
    const [balance, bills, budgets, running, endpoints, failed] = await Promise.all([
      billing ? get('/openapi/v1/billing/balance/detail') : undefined,
      billing ? get('/openapi/v1/billing/bill/list', { cycleType: 'Month', productCategory: 'summary', startTime: monthStart(), endTime: Math.floor(Date.now() / 1000) }) : undefined,
      can('readAllBudgets') ? get('/openapi/v1/user/team/budget-list')
        : get('/openapi/v1/user/team/key-budget-list', { member_id: principal().memberId }),
      compute ? get(`${GPU}/gpu/instances`, { status: 'running', pageSize: 5, pageNum: 1 }) : undefined,
      compute ? get(`${GPU}/endpoints`, { pageSize: 20, pageNum: 1 }) : undefined,
      compute ? get(`${GPU}/gpu/instances`, { status: 'exited', pageSize: 20, pageNum: 1 }) : undefined,
    ]);
    return { balance, bills, budgets, running, endpoints, failed };
  });
  return html`<h1>Overview</h1><${Loaded} state=${state}>${(/** @type {Json} */ d) => {
    /** @type {Record<string, bigint>} */
    const byCategory = {};
    for (const b of d.bills?.bills ?? []) byCategory[b.category] = (byCategory[b.category] ?? 0n) + BigInt(b.amount);
    const budgetRows = d.budgets?.budgets ?? d.budgets?.key_budgets ?? [];
    const notServing = (d.endpoints?.endpoints ?? []).filter((/** @type {Json} */ e) => e.state?.state !== 'serving');
    return html`
      ${d.balance && html`<h2>Balance</h2><${Cards} items=${[['Available', money(d.balance.availableBalance)], ['Cash', money(d.balance.cashBalance)], ['Credit limit', money(d.balance.creditLimit)], ['Owed', money(d.balance.outstandingInvoices)]]} />`}
      ${d.bills && html`<h2>Spend this month</h2>${Object.keys(byCategory).length
        ? html`<${Cards} items=${Object.entries(byCategory).map(([c, v]) => [c, money(v)])} />` : html`<p class="muted">No spend this month.</p>`}`}
      <h2>Budgets</h2>
      <${Table} label="Budgets" rows=${budgetRows} columns=${/** @type {Columns} */ ([
        { label: 'Member or key', cell: (r) => r.email || r.key_name || r.member_id || r.key_id },
        { label: 'Type', cell: (r) => r.budget_type },
        { label: 'Limit', num: true, cell: (r) => (r.budget_type === 'Unlimited' ? '—' : money(r.budget_limit)) },
        { label: 'Used', num: true, cell: (r) => money(r.used) },
        { label: 'Left', num: true, cell: (r) => (r.budget_type === 'Unlimited' ? 'unlimited' : money(r.remaining)) },
      ])} />
      ${d.running && html`<h2>Running</h2><${Cards} items=${[['Running instances', d.running.total], ['Endpoints', d.endpoints.total]]} />
        <${Table} label="Running instances" rows=${d.running.instances} empty="No instance is running." columns=${/** @type {Columns} */ ([
          { label: 'Name', cell: (r) => html`<a href=${`#/instances/${r.id}`}>${r.name || r.id}</a>` }, { label: 'Product', cell: (r) => r.productName }, { label: 'Status', cell: (r) => html`<${Status} value=${r.status} />` },
        ])} />`}
      ${d.failed && html`<h2>Recent failures</h2>
        <${Table} label="Recent failures" rows=${[...d.failed.instances.filter((/** @type {Json} */ i) => i.statusError?.state).map((/** @type {Json} */ i) => ({ what: `instance ${i.name || i.id}`, state: i.status, message: i.statusError?.message })),
          ...notServing.map((/** @type {Json} */ e) => ({ what: `endpoint ${e.name || e.id}`, state: e.state?.state, message: e.state?.message || e.state?.error }))]}
          empty="No failures." columns=${/** @type {Columns} */ ([{ label: 'What', cell: (r) => r.what }, { label: 'State', cell: (r) => html`<${Status} value=${r.state} />` }, { label: 'Message', cell: (r) => r.message || '' }])} />`}`;
  }}<//>`;
}
