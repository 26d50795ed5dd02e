// Persons, their one-time links and invitations (domain/accounts). A link is used by one
// conditional UPDATE (useLink): two concurrent uses of one token cannot both see it unused.
import { and, asc, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { members, persons, teams } from './schema.ts';
import { invitations, personLinks, recoveryCodes } from './schema-accounts.ts';
import { consoleSessions } from './schema-console.ts';

export type PersonRow = typeof persons.$inferSelect;
export type LinkRow = typeof personLinks.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;

export async function insertPerson(db: DbOrTx, row: typeof persons.$inferInsert): Promise<void> {
  await db.insert(persons).values(row);
}
export async function findPersonByEmail(db: DbOrTx, email: string): Promise<PersonRow | undefined> {
  const [row] = await db.select().from(persons).where(eq(sql`lower(${persons.email})`, email.toLowerCase()));
  return row;
}
export async function findPerson(db: DbOrTx, id: string): Promise<PersonRow | undefined> {
  const [row] = await db.select().from(persons).where(eq(persons.id, id));
  return row;
}
export async function updatePerson(db: DbOrTx, id: string, patch: Partial<PersonRow>): Promise<void> {
  await db.update(persons).set(patch).where(eq(persons.id, id));
}

/** The teams a person holds a seat in, with the seat (any status), oldest seat first. */
export async function listSeats(db: DbOrTx, personId: string) {
  return db.select({
    memberId: members.id, teamId: members.teamId, role: members.role, status: members.status, teamName: teams.name, teamStatus: teams.status,
    teamRequiresTwoFactor: teams.requireTwoFactor,
  })
    .from(members).innerJoin(teams, eq(teams.id, members.teamId))
    .where(eq(members.personId, personId)).orderBy(asc(members.createdAt), asc(members.id));
}

/** A person's seat in a team, with what decides whether their session may act there (the team's state and two-factor rule, the person's two-factor). */
export async function findSeat(db: DbOrTx, personId: string, teamId: string) {
  const [row] = await db.select({
    memberId: members.id, role: members.role, status: members.status, teamStatus: teams.status,
    teamRequiresTwoFactor: teams.requireTwoFactor, personTwoFactor: sql<boolean>`${persons.totpEnabledAtMs} is not null`,
  })
    .from(members).innerJoin(teams, eq(teams.id, members.teamId)).innerJoin(persons, eq(persons.id, members.personId))
    .where(and(eq(members.personId, personId), eq(members.teamId, teamId)));
  return row;
}

export async function insertLink(db: DbOrTx, row: typeof personLinks.$inferInsert): Promise<void> {
  await db.insert(personLinks).values(row);
}
export async function findLink(db: DbOrTx, id: string): Promise<LinkRow | undefined> {
  const [row] = await db.select().from(personLinks).where(eq(personLinks.id, id));
  return row;
}
/** Give a link (still unused) the hash of the token its message carries, and its expiry from now. */
export async function setLinkToken(db: DbOrTx, id: string, tokenHash: string, expiresAtMs: number): Promise<boolean> {
  const rows = await db.update(personLinks).set({ tokenHash, expiresAtMs })
    .where(and(eq(personLinks.id, id), isNull(personLinks.usedAtMs))).returning({ id: personLinks.id });
  return rows.length === 1;
}
export async function deleteLink(db: DbOrTx, id: string): Promise<void> {
  await db.delete(personLinks).where(eq(personLinks.id, id));
}

/**
 * Use the link whose token hashes to `tokenHash`, for `purpose`, if it is unused and not
 * expired: one statement, so of two concurrent uses exactly one gets the row.
 */
export async function useLink(db: DbOrTx, tokenHash: string, purpose: string, nowMs: number): Promise<LinkRow | undefined> {
  const [row] = await db.update(personLinks).set({ usedAtMs: nowMs })
    .where(and(eq(personLinks.tokenHash, tokenHash), eq(personLinks.purpose, purpose), isNull(personLinks.usedAtMs), gt(personLinks.expiresAtMs, nowMs)))
    .returning();
  return row;
}

/** Links unused and expired a day ago, and used ones a day after their use, are of no further use. */
export async function deleteOldLinks(db: DbOrTx, beforeMs: number): Promise<void> {
  await db.delete(personLinks).where(lt(personLinks.expiresAtMs, beforeMs));
}

/** The other unused links of a purpose to an address (a reset makes earlier reset links worthless). */
export async function expireLinks(db: DbOrTx, email: string, purpose: string, nowMs: number): Promise<void> {
  await db.update(personLinks).set({ usedAtMs: nowMs })
    .where(and(eq(personLinks.email, email), eq(personLinks.purpose, purpose), isNull(personLinks.usedAtMs)));
}

/** Every unused link of an invitation is spent (it was sent again: only the new link works). */
export async function expireInvitationLinks(db: DbOrTx, invitationId: string, nowMs: number): Promise<void> {
  await db.update(personLinks).set({ usedAtMs: nowMs }).where(and(eq(personLinks.invitationId, invitationId), isNull(personLinks.usedAtMs)));
}

export async function insertInvitation(db: DbOrTx, row: InvitationRow): Promise<void> {
  await db.insert(invitations).values(row);
}
export async function findInvitation(db: DbOrTx, id: string): Promise<InvitationRow | undefined> {
  const [row] = await db.select().from(invitations).where(eq(invitations.id, id));
  return row;
}
export async function lockInvitation(db: DbOrTx, id: string): Promise<InvitationRow | undefined> {
  const [row] = await db.select().from(invitations).where(eq(invitations.id, id)).for('update');
  return row;
}
export async function listInvitations(db: DbOrTx, teamId: string): Promise<InvitationRow[]> {
  return db.select().from(invitations).where(eq(invitations.teamId, teamId)).orderBy(desc(invitations.createdAtMs), desc(invitations.id));
}
export async function updateInvitation(db: DbOrTx, id: string, patch: Partial<InvitationRow>): Promise<void> {
  await db.update(invitations).set(patch).where(eq(invitations.id, id));
}
export async function deleteMember(db: DbOrTx, id: string): Promise<void> {
  await db.delete(members).where(eq(members.id, id));
}

export async function findLinkByToken(db: DbOrTx, tokenHash: string): Promise<LinkRow | undefined> {
  const [row] = await db.select().from(personLinks).where(eq(personLinks.tokenHash, tokenHash));
  return row;
}
export async function findTeamName(db: DbOrTx, teamId: string): Promise<string | undefined> {
  const [row] = await db.select({ name: teams.name }).from(teams).where(eq(teams.id, teamId));
  return row?.name;
}

/** Whether `err` is the unique index on persons' addresses refusing a second person of one address (two links followed at once). */
export function isPersonEmailTaken(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const x = e as { code?: unknown; constraint?: unknown; message?: unknown };
    if (x.code === '23505') return x.constraint === 'persons_email_lower' || (typeof x.message === 'string' && x.message.includes('persons_email_lower'));
  }
  return false;
}

/** Accept a TOTP code's time step once: raises the person's last step, or does nothing when it is not above it (a code replayed, or used at once elsewhere). */
export async function acceptTotpStep(db: DbOrTx, personId: string, step: number): Promise<boolean> {
  const rows = await db.update(persons).set({ totpLastStep: step })
    .where(and(eq(persons.id, personId), sql`coalesce(${persons.totpLastStep}, -1) < ${step}`)).returning({ id: persons.id });
  return rows.length === 1;
}

export async function replaceRecoveryCodes(db: DbOrTx, personId: string, hashes: string[], nowMs: number): Promise<void> {
  await db.delete(recoveryCodes).where(eq(recoveryCodes.personId, personId));
  if (hashes.length) await db.insert(recoveryCodes).values(hashes.map((codeHash) => ({ personId, codeHash, createdAtMs: nowMs })));
}

/** Use a recovery code once (one conditional UPDATE). */
export async function useRecoveryCode(db: DbOrTx, personId: string, codeHash: string, nowMs: number): Promise<boolean> {
  const rows = await db.update(recoveryCodes).set({ usedAtMs: nowMs })
    .where(and(eq(recoveryCodes.personId, personId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAtMs))).returning({ id: recoveryCodes.personId });
  return rows.length === 1;
}

export async function countRecoveryCodesLeft(db: DbOrTx, personId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(recoveryCodes).where(and(eq(recoveryCodes.personId, personId), isNull(recoveryCodes.usedAtMs)));
  return Number(row?.n ?? 0);
}

/** The person whose console session has this id (`ses_…`), while it lives. */
export async function findPersonOfSession(db: DbOrTx, ref: string): Promise<PersonRow | undefined> {
  const [row] = await db.select({ person: persons }).from(consoleSessions).innerJoin(persons, eq(persons.id, consoleSessions.personId)).where(eq(consoleSessions.ref, ref));
  return row?.person;
}

export async function setTeamRequiresTwoFactor(db: DbOrTx, teamId: string, required: boolean): Promise<void> {
  await db.update(teams).set({ requireTwoFactor: required }).where(eq(teams.id, teamId));
}

/** Messages already written for links to an address since `sinceMs` (a link gets a token when its message is written). */
export async function countRecentLinkMails(db: DbOrTx, email: string, sinceMs: number, exceptId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(personLinks)
    .where(and(eq(personLinks.email, email), gt(personLinks.createdAtMs, sinceMs), sql`${personLinks.tokenHash} is not null`, sql`${personLinks.id} <> ${exceptId}`));
  return Number(row?.n ?? 0);
}

/** A link whose message carries no token (the sign-up of an address that has an account): spent, and counted as a message sent. */
export async function markLinkSent(db: DbOrTx, id: string, nowMs: number): Promise<void> {
  await db.update(personLinks).set({ usedAtMs: nowMs, tokenHash: `sent:${id}` }).where(eq(personLinks.id, id));
}

/** A team's member of an address, whatever the case it was stored in (members made before accounts kept addresses as given). */
export async function findMemberByAddress(db: DbOrTx, teamId: string, email: string) {
  const [row] = await db.select().from(members).where(and(eq(members.teamId, teamId), eq(sql`lower(${members.email})`, email.toLowerCase())));
  return row;
}
