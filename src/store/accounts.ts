// Teams, members and API keys.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { apiKeys, members, teams } from './schema.ts';
import { consoleSessions } from './schema-console.ts';

export type TeamRow = typeof teams.$inferSelect;
/** A team's balance columns, which every posting rewrites. */
export type WalletColumns = Pick<TeamRow, 'cashMicro' | 'voucherMicro' | 'outstandingMicro'>;
export type MemberRow = typeof members.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertTeam(db: DbOrTx, row: typeof teams.$inferInsert): Promise<void> {
  await db.insert(teams).values(row);
}
export async function findTeam(db: DbOrTx, id: string): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, id));
  return row;
}
export async function lockTeam(db: DbOrTx, id: string): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, id)).for('update');
  return row;
}
export async function listTeams(db: DbOrTx): Promise<TeamRow[]> {
  return db.select().from(teams).orderBy(asc(teams.id));
}
export async function updateTeam(db: DbOrTx, id: string, patch: Partial<typeof teams.$inferInsert>): Promise<void> {
  await db.update(teams).set(patch).where(eq(teams.id, id));
}

export async function insertMember(db: DbOrTx, row: typeof members.$inferInsert): Promise<void> {
  await db.insert(members).values(row);
}
export async function findMember(db: DbOrTx, id: string): Promise<MemberRow | undefined> {
  const [row] = await db.select().from(members).where(eq(members.id, id));
  return row;
}
export async function findMemberByEmail(db: DbOrTx, teamId: string, email: string): Promise<MemberRow | undefined> {
  const [row] = await db.select().from(members).where(and(eq(members.teamId, teamId), eq(members.email, email)));
  return row;
}
export async function listMembers(db: DbOrTx, teamId: string): Promise<MemberRow[]> {
  return db.select().from(members).where(eq(members.teamId, teamId)).orderBy(asc(members.id));
}
export async function updateMember(db: DbOrTx, id: string, patch: Partial<typeof members.$inferInsert>): Promise<void> {
  await db.update(members).set(patch).where(eq(members.id, id));
}

export async function insertKey(db: DbOrTx, row: typeof apiKeys.$inferInsert): Promise<void> {
  await db.insert(apiKeys).values(row);
}
export async function findKey(db: DbOrTx, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id));
  return row;
}
export async function listKeysOfMember(db: DbOrTx, memberId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.memberId, memberId)).orderBy(asc(apiKeys.id));
}
export async function updateKey(db: DbOrTx, id: string, patch: Partial<typeof apiKeys.$inferInsert>): Promise<void> {
  await db.update(apiKeys).set(patch).where(eq(apiKeys.id, id));
}

/** Everything auth needs about a presented secret, in one round trip. */
export interface KeyIdentity {
  keyId: string;
  keyStatus: string;
  memberId: string;
  memberStatus: string;
  role: string;
  teamId: string;
  teamStatus: string;
}
export async function findIdentityBySecretHash(db: DbOrTx, hash: string): Promise<KeyIdentity | undefined> {
  const [row] = await identities(db).where(eq(apiKeys.secretHash, hash));
  return row;
}

/** The same, by the key's id (a live session re-checks the key it was opened with). */
export async function findIdentityByKeyId(db: DbOrTx, keyId: string): Promise<KeyIdentity | undefined> {
  const [row] = await identities(db).where(eq(apiKeys.id, keyId));
  return row;
}

/**
 * The same for a person's console session by its id (`ses_…`, the keyId of its principal):
 * its person's member in its current team, while the session lives (keyStatus `active`).
 */
export async function findIdentityBySessionRef(db: DbOrTx, ref: string, nowMs: number): Promise<KeyIdentity | undefined> {
  const [row] = await db
    .select({
      keyId: sql<string>`${consoleSessions.ref}`, keyStatus: sql<string>`'active'`,
      memberId: members.id, memberStatus: members.status, role: members.role, teamId: teams.id, teamStatus: teams.status,
    })
    .from(consoleSessions)
    .innerJoin(members, and(eq(members.personId, consoleSessions.personId), eq(members.teamId, consoleSessions.teamId)))
    .innerJoin(teams, eq(teams.id, members.teamId))
    .where(and(eq(consoleSessions.ref, ref), gt(consoleSessions.expiresAtMs, nowMs)));
  return row;
}

function identities(db: DbOrTx) {
  return db
    .select({
      keyId: apiKeys.id,
      keyStatus: apiKeys.status,
      memberId: members.id,
      memberStatus: members.status,
      role: members.role,
      teamId: teams.id,
      teamStatus: teams.status,
    })
    .from(apiKeys)
    .innerJoin(members, eq(members.id, apiKeys.memberId))
    .innerJoin(teams, eq(teams.id, apiKeys.teamId));
}
