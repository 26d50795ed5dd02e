// Member and API-key budgets. Invariants are stated in ./README.md.
import { invalid } from '../../lib/errors.ts';
import { microToUnits } from '../../lib/money.ts';
import { monthPeriod } from '../../lib/clock.ts';
import type { Ctx } from '../context.ts';
import { ACTIVE } from '../accounts/codes.ts';
import * as q from '../../store/budgets.ts';
import { deleteKeyBudgetDefault, findKeyBudgetDefault, upsertKeyBudgetDefault } from '../../store/restrictions.ts';
import { findKey, listKeysOfMember, listMembers, type MemberRow } from '../../store/accounts.ts';
import { requireAnyMember, requireMember } from '../accounts/members.ts';
import { requireKey } from '../keys/keys.ts';
import { assertMayActOn, assertNotOwnLimit, can, type Principal } from '../roles.ts';
import { roleRefused } from '../errors.ts';
import { keyNotOfMember, noSuchKey } from './errors.ts';

export const BUDGET_TYPES = ['Unlimited', 'One-time', 'Recurring'] as const;
export type BudgetType = (typeof BUDGET_TYPES)[number];
export const BUDGET_CYCLES = ['Monthly'] as const;
export const MIN_BUDGET_LIMIT_UNITS = 10000n;
/**
 * Budgets are int64 JSON numbers at the interface; above 2^53 a JSON number no longer reads
 * back exactly (JSON.parse and most clients round it), so that is the largest limit taken.
 */
export const MAX_BUDGET_LIMIT_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

export interface BudgetInput {
  budget_type: string;
  budget_limit?: number | string | undefined;
  cycle?: string | undefined;
}

export interface NormalizedBudget {
  type: BudgetType;
  limitUnits: bigint;
  cycle: 'Monthly' | null;
}

export function normalizeBudget(input: BudgetInput): NormalizedBudget {
  const type = input.budget_type as BudgetType;
  if (!BUDGET_TYPES.includes(type)) throw invalid('budget_type', `must be one of ${BUDGET_TYPES.join(', ')}`);
  if (input.cycle !== undefined && input.cycle !== '' && !(BUDGET_CYCLES as readonly string[]).includes(input.cycle)) {
    throw invalid('cycle', 'only Monthly is supported');
  }
  if (type === 'Unlimited') return { type, limitUnits: 0n, cycle: null };
  if (input.budget_limit === undefined || input.budget_limit === '') {
    throw invalid('budget_limit', `required when budget_type is ${type}`);
  }
  const raw = String(input.budget_limit);
  if (!/^-?\d+$/.test(raw)) throw invalid('budget_limit', 'must be an integer (1/10000 USD)');
  const limitUnits = BigInt(raw);
  if (limitUnits < MIN_BUDGET_LIMIT_UNITS) throw invalid('budget_limit', `must be at least ${MIN_BUDGET_LIMIT_UNITS} (1.00 USD)`);
  if (limitUnits > MAX_BUDGET_LIMIT_UNITS) throw invalid('budget_limit', `must be at most ${MAX_BUDGET_LIMIT_UNITS} (2^53 - 1)`);
  if (type === 'Recurring') {
    if (!input.cycle) throw invalid('cycle', 'required when budget_type is Recurring');
    return { type, limitUnits, cycle: 'Monthly' };
  }
  return { type, limitUnits, cycle: null };
}

export interface BudgetState {
  budget_type: BudgetType;
  budget_limit: number;
  used: number;
  remaining: number;
  cycle?: string;
  period_start?: string;
  period_end?: string;
}

const UNLIMITED: BudgetState = { budget_type: 'Unlimited', budget_limit: 0, used: 0, remaining: 0 };

function stateOf(b: q.BudgetWithSpend | undefined, nowMs: number): BudgetState {
  if (!b) return UNLIMITED;
  const used = microToUnits(b.spentMicro);
  const state: BudgetState = {
    budget_type: b.budgetType as BudgetType,
    budget_limit: Number(b.limitUnits),
    used: Number(used),
    remaining: Number(b.limitUnits - used),
  };
  if (b.budgetType === 'Recurring') {
    const p = monthPeriod(nowMs);
    state.cycle = b.cycle ?? 'Monthly';
    state.period_start = new Date(p.startMs).toISOString();
    state.period_end = new Date(p.endMs).toISOString();
  }
  return state;
}

async function spendFor(ctx: Ctx, teamId: string, scope: q.BudgetScope, subjectId?: string) {
  const month = new Date(monthPeriod(ctx.clock.nowMs()).startMs);
  const rows = await q.budgetsWithSpend(ctx.db, teamId, scope, month, subjectId);
  return new Map(rows.map((r) => [r.subjectId, r]));
}

/** Developer and Basic see only their own budgets (DESIGN.md role table). */
function assertMayRead(p: Principal, memberId: string): void {
  if (!can(p.role, 'readAllBudgets') && p.memberId !== memberId) {
    throw roleRefused(p.role, `role ${p.role} may only read its own budgets`);
  }
}

async function writeBudget(ctx: Ctx, teamId: string, scope: q.BudgetScope, subjectId: string, b: NormalizedBudget): Promise<void> {
  if (b.type === 'Unlimited') await q.deleteBudget(ctx.db, scope, subjectId);
  else {
    await q.upsertBudget(ctx.db, {
      scope, subjectId, teamId, budgetType: b.type, limitUnits: b.limitUnits, cycle: b.cycle,
      setAt: new Date(ctx.clock.nowMs()),
    });
  }
  ctx.changes.publish({ type: 'budget.changed', scope: { kind: scope, id: subjectId } }); // the gateway re-reads this budget
}

export async function setMemberBudget(ctx: Ctx, p: Principal, memberId: string, input: BudgetInput): Promise<void> {
  const budget = normalizeBudget(input); // the body is judged before anything is looked up
  const member = await requireMember(ctx, p.teamId, memberId);
  assertMayActOn(p, member, 'set the budget');
  assertNotOwnLimit(p, memberId, 'set its own member budget');
  await writeBudget(ctx, p.teamId, 'member', memberId, budget);
}

export async function setKeyBudget(ctx: Ctx, p: Principal, memberId: string, keyId: string, input: BudgetInput): Promise<void> {
  const budget = normalizeBudget(input);
  const member = await requireMember(ctx, p.teamId, memberId);
  const key = await requireKey(ctx, p.teamId, keyId);
  if (key.memberId !== memberId) throw keyNotOfMember(keyId, memberId);
  assertMayActOn(p, member, 'set a key budget'); // Admin and Billing update key budgets, never the Owner's
  assertNotOwnLimit(p, memberId, 'set the budget of its own key');
  await writeBudget(ctx, p.teamId, 'key', keyId, budget);
}

/**
 * The budget every key created for the member from now on starts with (Unlimited: none).
 * Keys the member already has keep theirs. Set by those who update key budgets.
 */
export async function setDefaultKeyBudget(ctx: Ctx, p: Principal, memberId: string, input: BudgetInput): Promise<void> {
  const budget = normalizeBudget(input);
  const member = await requireMember(ctx, p.teamId, memberId);
  assertMayActOn(p, member, 'set the default key budget');
  assertNotOwnLimit(p, memberId, 'set its own default key budget');
  if (budget.type === 'Unlimited') await deleteKeyBudgetDefault(ctx.db, memberId);
  else {
    await upsertKeyBudgetDefault(ctx.db, {
      memberId, teamId: p.teamId, budgetType: budget.type, limitUnits: budget.limitUnits, cycle: budget.cycle,
      updatedAt: new Date(ctx.clock.nowMs()), updatedBy: p.memberId,
    });
  }
  // Nothing cached reads it: createKey reads it in the key's own transaction.
}

export async function getDefaultKeyBudget(ctx: Ctx, p: Principal, memberId: string) {
  await requireMember(ctx, p.teamId, memberId);
  assertMayRead(p, memberId);
  const d = await findKeyBudgetDefault(ctx.db, memberId);
  if (!d) return { member_id: memberId, budget_type: 'Unlimited' as BudgetType, budget_limit: 0 };
  return {
    member_id: memberId, budget_type: d.budgetType as BudgetType, budget_limit: Number(d.limitUnits),
    ...(d.cycle ? { cycle: d.cycle } : {}),
  };
}

function memberEntry(m: MemberRow, state: BudgetState) {
  return {
    email: m.email, role: m.role, status: m.status, member_id: m.id, phone: m.phone,
    user_id: m.teamId, remark_name: m.remarkName, ...state,
  };
}

export async function listMemberBudgets(ctx: Ctx, p: Principal) {
  const [members, spend] = await Promise.all([listMembers(ctx.db, p.teamId), spendFor(ctx, p.teamId, 'member')]);
  const now = ctx.clock.nowMs();
  const visible = can(p.role, 'readAllBudgets') ? members : members.filter((m) => m.id === p.memberId);
  return {
    member_count: members.length,
    budget_count: members.filter((m) => spend.has(m.id)).length,
    budgets: visible.map((m) => memberEntry(m, stateOf(spend.get(m.id), now))),
  };
}

export async function listKeyBudgets(ctx: Ctx, p: Principal, memberId: string) {
  await requireMember(ctx, p.teamId, memberId);
  assertMayRead(p, memberId);
  const [keys, spend] = await Promise.all([listKeysOfMember(ctx.db, memberId), spendFor(ctx, p.teamId, 'key')]);
  const now = ctx.clock.nowMs();
  return {
    key_budgets: keys.filter((k) => k.status === ACTIVE).map((k) => ({
      key_id: k.id, key_name: k.name, ...stateOf(spend.get(k.id), now),
    })),
  };
}

function parseCost(cost: number | string): bigint {
  const raw = String(cost);
  if (!/^\d+$/.test(raw)) throw invalid('cost', 'must be a non-negative integer (1/10000 USD)');
  return BigInt(raw);
}

async function memberState(ctx: Ctx, p: Principal, memberId: string): Promise<BudgetState> {
  await requireMember(ctx, p.teamId, memberId);
  assertMayRead(p, memberId);
  const spend = await spendFor(ctx, p.teamId, 'member', memberId);
  return stateOf(spend.get(memberId), ctx.clock.nowMs());
}

/** check-budget: enough when the remaining budget is greater than zero (or unlimited). */
export async function checkMemberBudget(ctx: Ctx, p: Principal, memberId: string): Promise<boolean> {
  const s = await memberState(ctx, p, memberId);
  return s.budget_type === 'Unlimited' || s.remaining > 0;
}

/** check-budget-by-cost: enough when remaining >= cost (or unlimited). */
export async function checkMemberBudgetByCost(ctx: Ctx, p: Principal, memberId: string, cost: number | string): Promise<boolean> {
  const c = parseCost(cost);
  const s = await memberState(ctx, p, memberId);
  return s.budget_type === 'Unlimited' || BigInt(s.remaining) >= c;
}

/** check-key-budget-by-cost: enough when the key's remaining budget covers the cost. */
export async function checkKeyBudgetByCost(ctx: Ctx, p: Principal, memberId: string, keyId: string, cost: number | string): Promise<boolean> {
  const c = parseCost(cost);
  await requireMember(ctx, p.teamId, memberId);
  assertMayRead(p, memberId);
  const key = await requireKey(ctx, p.teamId, keyId);
  if (key.memberId !== memberId) throw keyNotOfMember(keyId, memberId);
  const spend = await spendFor(ctx, p.teamId, 'key', keyId);
  const s = stateOf(spend.get(keyId), ctx.clock.nowMs());
  return s.budget_type === 'Unlimited' || BigInt(s.remaining) >= c;
}

// ---- the operator's (the admin API): every team's budgets, set on anyone, the Owner included ----

/** A team's budgets as the operator reads them: every member's, with its active keys' under it. */
export async function listTeamBudgets(ctx: Ctx, teamId: string) {
  const [members, memberSpend, keySpend] = await Promise.all([
    listMembers(ctx.db, teamId), spendFor(ctx, teamId, 'member'), spendFor(ctx, teamId, 'key'),
  ]);
  const now = ctx.clock.nowMs();
  const keysOf = await Promise.all(members.map((m) => listKeysOfMember(ctx.db, m.id)));
  return {
    budgets: members.map((m, i) => ({
      ...memberEntry(m, stateOf(memberSpend.get(m.id), now)),
      keys: keysOf[i]!.filter((k) => k.status === ACTIVE).map((k) => ({ key_id: k.id, key_name: k.name, ...stateOf(keySpend.get(k.id), now) })),
    })),
  };
}

/**
 * The operator sets a member's budget: no role rule applies (the operator is above every
 * member, the Owner included), the budget's own rules do.
 */
export async function setMemberBudgetByOperator(ctx: Ctx, memberId: string, input: BudgetInput): Promise<void> {
  const budget = normalizeBudget(input);
  const member = await requireAnyMember(ctx, memberId);
  await writeBudget(ctx, member.teamId, 'member', member.id, budget);
}

/** The operator sets an API key's budget (any team's, any member's). */
export async function setKeyBudgetByOperator(ctx: Ctx, keyId: string, input: BudgetInput): Promise<void> {
  const budget = normalizeBudget(input);
  const key = await findKey(ctx.db, keyId);
  if (!key || key.status !== ACTIVE) throw noSuchKey(keyId);
  await writeBudget(ctx, key.teamId, 'key', key.id, budget);
}
