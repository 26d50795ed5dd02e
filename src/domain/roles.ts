// Team roles and the capability matrix of DESIGN.md. The interface fixes the policy rule;
// the rest is Gantry's default.
import { roleRefused } from './errors.ts';

export const ROLES = ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'] as const;
export type Role = (typeof ROLES)[number];

export const CAPABILITIES = {
  callModels: ['Owner', 'Admin', 'Developer', 'Basic'],
  manageOwnKeys: ['Owner', 'Admin', 'Developer', 'Basic'],
  writePolicy: ['Owner', 'Admin'],
  readPolicy: ['Owner', 'Admin', 'Developer'],
  manageMembers: ['Owner', 'Admin'],
  updateKeyBudget: ['Owner', 'Admin', 'Billing'],
  readBudgets: ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'],
  readAllBudgets: ['Owner', 'Admin', 'Billing'],
  readBilling: ['Owner', 'Admin', 'Billing'],
  /** pay money in by card (domain/payments): whoever holds the team's purse, not an Admin */
  topUp: ['Owner', 'Billing'],
  readQuotas: ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'],
  changeCompute: ['Owner', 'Admin', 'Developer'],
  readCompute: ['Owner', 'Admin', 'Developer', 'Basic'],
  /** webhook secret, endpoints and their delivery logs */
  manageWebhooks: ['Owner', 'Admin'],
} as const satisfies Record<string, readonly Role[]>;
export type Capability = keyof typeof CAPABILITIES;

export function can(role: Role, cap: Capability): boolean {
  return (CAPABILITIES[cap] as readonly Role[]).includes(role);
}

export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

/** The authenticated caller of a tenant route. */
export interface Principal {
  teamId: string;
  memberId: string;
  keyId: string;
  role: Role;
}

/**
 * Only an Owner acts on an Owner: an Admin (and Billing, on key budgets) never changes the
 * Owner's role, status, budgets, keys or key policies (DESIGN.md role table: "never the
 * Owner"). Reads are not actions. `what` completes "may not … of the Owner".
 */
export function assertMayActOn(actor: Principal, target: { id: string; role: string }, what: string): void {
  if (target.role === 'Owner' && actor.role !== 'Owner') {
    throw roleRefused(actor.role, `role ${actor.role} may not ${what} of the Owner`, {
      memberId: target.id, rule: 'only an Owner acts on an Owner',
    });
  }
}

/**
 * Nobody changes a limit that binds itself: its member budget, its member policy, the budget
 * its new keys start with, its keys' budgets or policies. Otherwise a restricted member undoes
 * what an Owner or Admin set (issue 29). Any change is refused, lowering included: one rule,
 * no comparing of limits. An Owner has no one above it and may.
 */
export function assertNotOwnLimit(actor: Principal, memberId: string, what: string): void {
  if (memberId === actor.memberId && actor.role !== 'Owner') {
    throw roleRefused(actor.role, `role ${actor.role} may not ${what}: limits that bind a member are set by another member above it, never by itself`, {
      memberId, rule: 'nobody changes a limit on itself',
    });
  }
}
