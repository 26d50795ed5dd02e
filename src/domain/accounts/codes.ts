// The closed sets of accounts, keys and members, in one place (store, domain, routes and
// tests import them).
export const TEAM_STATUSES = ['active', 'suspended'] as const;
export type TeamStatus = (typeof TEAM_STATUSES)[number];

/** `invited`: a seat an invitation holds until it is accepted (domain/accounts/invitations.ts); it cannot act. */
export const MEMBER_STATUSES = ['active', 'disabled', 'invited'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export const KEY_STATUSES = ['active', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A team, member or key in this state can act; any other state refuses. */
export const ACTIVE = 'active' satisfies TeamStatus & MemberStatus & KeyStatus;

/** What a one-time link sent by e-mail is for (`email`: a change of address, sent to the new one; `operator`: an operator account, operators.ts): a token works for its own purpose only. */
export const LINK_PURPOSES = ['confirm', 'reset', 'invite', 'email', 'operator'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** An operator grant (operators.ts): invited (its link sent), active (its person is an operator), revoked. */
export const OPERATOR_GRANT_STATUSES = ['invited', 'active', 'revoked'] as const;
export type OperatorGrantStatus = (typeof OPERATOR_GRANT_STATUSES)[number];
