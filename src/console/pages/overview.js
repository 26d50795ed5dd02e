// @ts-check
// Overview: the available balance and what makes it (cash, vouchers, credit, owed, held for
// work running), this month's spend by category, budgets with what is used and left (spend for
// Unlimited ones too), running instances with their cost so far, endpoints, recent failures
// (failed instances and endpoints not serving). Amounts in dollars, exact on hover.
import { html } from 'htm/preact';
import { can, get, principal } from '../api.js';
import { Loaded, Money, Status, Table, useLoad } from '../ui.js';
import { monthSpend } from '../spend.js';
import { monthStart } from '../spend-sums.js';
import { GPU, useCostsSoFar } from './instances.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

/**
 * The available balance and its parts, as the API computes it (domain/billing/balance.ts):
 * vouchers + cash + credit limit − owed − held for work in flight (the first hour of running
 * GPUs and endpoint workers, model calls being answered).
 * @param {{ b: Json }} props
 */
function Balance({ b }) {
  /** @type {[string, string, string, string][]} sign, card label, the same in a sentence, amount */
  const parts = [['+', 'Cash', 'cash', b.cashBalance], ['+', 'Vouchers', 'vouchers', b.voucherBalance], ['+', 'Credit limit', 'credit limit', b.creditLimit],
    ['−', 'Owed', 'owed', b.outstandingInvoices], ['−', 'Held for running GPUs', 'held for running GPUs', b.pendingCharges]];
  return html`<h2>Balance</h2>
    <div class="cards">
      <div class="card"><div class="label">Available</div><div class="value" data-testid="available"><${Money} units=${b.availableBalance} /></div></div>
      ${parts.map(([, label, , v]) => html`<div class="card"><div class="label">${label}</div><div class="value"><${Money} units=${v} /></div></div>`)}
    </div>
    <p class="parts" data-testid="balance-parts">Available = ${parts.map(([sign, , words, v], i) => html`${i ? ` ${sign} ` : ''}${words} <${Money} units=${v} />`)}.
      Held: the first hour of each running GPU instance and endpoint worker, and model calls being answered, until their charges come in.</p>`;
}

/** @param {{ rows: Json[] }} props */
function RunningInstances({ rows }) {
  const costs = useCostsSoFar('gpu', rows);
  return html`<${Table} label="Running instances" rows=${rows} empty="No instance is running." columns=${/** @type {Columns} */ ([
    { label: 'Name', cell: (r) => html`<a href=${`#/instances/${r.id}`}>${r.name || r.id}</a>` }, { label: 'Product', cell: (r) => `${r.productName} × ${r.gpuNum}` }, { label: 'Status', cell: (r) => html`<${Status} value=${r.status} />` },
    ...(costs ? [{ label: 'Cost so far', num: true, cell: (/** @type {Json} */ r) => html`<${Money} units=${costs.get(r.id) ?? 0n} />` }] : []),
  ])} />`;
}

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
    // what Unlimited members and keys spent this month (their budget rows say 0): a detail
    const spend = await monthSpend((budgets?.budgets ?? []).map((/** @type {Json} */ b) => b.member_id)).catch(() => undefined);
    return { balance, bills, budgets, running, endpoints, failed, spend };
  });
  return html`<h1>Overview</h1><${Loaded} state=${state}>${(/** @type {Json} */ d) => {
    /** @type {Record<string, bigint>} */
    const byCategory = {};
    for (const b of d.bills?.bills ?? []) byCategory[b.category] = (byCategory[b.category] ?? 0n) + BigInt(b.amount);
    const budgetRows = d.budgets?.budgets ?? d.budgets?.key_budgets ?? [];
    const notServing = (d.endpoints?.endpoints ?? []).filter((/** @type {Json} */ e) => e.state?.state !== 'serving');
    return html`
      ${d.balance && html`<${Balance} b=${d.balance} />`}
      ${d.bills && html`<h2>Spend this month</h2>${Object.keys(byCategory).length
        ? html`<${Cards} items=${Object.entries(byCategory).map(([c, v]) => [c, html`<${Money} units=${v} />`])} />` : html`<p class="muted">No spend this month.</p>`}`}
      <h2>Budgets</h2>
      <${Table} label="Budgets" rows=${budgetRows} columns=${/** @type {Columns} */ ([
        { label: 'Member or key', cell: (r) => r.email || r.key_name || r.member_id || r.key_id },
        { label: 'Type', cell: (r) => r.budget_type },
        { label: 'Limit', num: true, cell: (r) => (r.budget_type === 'Unlimited' ? '—' : html`<${Money} units=${r.budget_limit} />`) },
        { label: 'Used', num: true, cell: (r) => {
          if (r.budget_type !== 'Unlimited') return html`<${Money} units=${r.used} />`;
          // an Unlimited budget counts nothing: this month's spend from the bills, when the role may read them
          const spent = r.member_id ? d.spend?.byMember?.get(r.member_id) : d.spend?.byKey.get(r.key_id) ?? (d.spend ? 0n : undefined);
          return spent === undefined ? html`<span class="muted" title="what it spent is not shown to your role">not shown</span>` : html`<${Money} units=${spent} /> <span class="muted">this month</span>`;
        } },
        { label: 'Left', num: true, cell: (r) => (r.budget_type === 'Unlimited' ? 'unlimited' : html`<${Money} units=${r.remaining} />`) },
      ])} />
      ${d.running && html`<h2>Running</h2><${Cards} items=${[['Running instances', d.running.total], ['Endpoints', d.endpoints.total]]} />
        <${RunningInstances} rows=${d.running.instances} />`}
      ${d.failed && html`<h2>Recent failures</h2>
        <${Table} label="Recent failures" rows=${[...d.failed.instances.filter((/** @type {Json} */ i) => i.statusError?.state).map((/** @type {Json} */ i) => ({ what: `instance ${i.name || i.id}`, state: i.status, message: i.statusError?.message })),
          ...notServing.map((/** @type {Json} */ e) => ({ what: `endpoint ${e.name || e.id}`, state: e.state?.state, message: e.state?.message || e.state?.error }))]}
          empty="No failures." columns=${/** @type {Columns} */ ([{ label: 'What', cell: (r) => r.what }, { label: 'State', cell: (r) => html`<${Status} value=${r.state} />` }, { label: 'Message', cell: (r) => r.message || '' }])} />`}`;
  }}<//>`;
}
