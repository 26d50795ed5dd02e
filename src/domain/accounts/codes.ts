// The closed sets of accounts, keys and members, in one place (store, domain, routes and
// tests import them).
export const TEAM_STATUSES = ['active', 'suspended'] as const;
export type TeamStatus = (typeof TEAM_STATUSES)[number];

export const MEMBER_STATUSES = ['active', 'disabled'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export const KEY_STATUSES = ['active', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A team, member or key in this state can act; any other state refuses. */
export const ACTIVE = 'active' satisfies TeamStatus & MemberStatus & KeyStatus;
