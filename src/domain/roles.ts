// Team roles and the capability matrix of DESIGN.md. The interface fixes the policy rule;
// the rest is Gantry's default.
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
  readQuotas: ['Owner', 'Admin', 'Developer', 'Basic', 'Billing'],
  changeCompute: ['Owner', 'Admin', 'Developer'],
  readCompute: ['Owner', 'Admin', 'Developer', 'Basic'],
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
