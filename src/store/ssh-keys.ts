// Members' SSH public keys (schema-ssh.ts).
import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from './db.ts';
import { sshKeys } from './schema-ssh.ts';

export type SshKeyRow = typeof sshKeys.$inferSelect;

/** Inserts the key; false when the team already has a key with that fingerprint. */
export async function insertSshKey(db: DbOrTx, row: SshKeyRow): Promise<boolean> {
  const out = await db.insert(sshKeys).values(row).onConflictDoNothing().returning({ id: sshKeys.id });
  return out.length === 1;
}
export async function listSshKeysOfMember(db: DbOrTx, memberId: string): Promise<SshKeyRow[]> {
  return db.select().from(sshKeys).where(eq(sshKeys.memberId, memberId)).orderBy(asc(sshKeys.createdAt), asc(sshKeys.id));
}
export async function findSshKey(db: DbOrTx, id: string): Promise<SshKeyRow | undefined> {
  const [row] = await db.select().from(sshKeys).where(eq(sshKeys.id, id));
  return row;
}
/** The team's key with this fingerprint: how the SSH endpoint finds the member a key is. */
export async function findTeamSshKeyByFingerprint(db: DbOrTx, teamId: string, fingerprint: string): Promise<SshKeyRow | undefined> {
  const [row] = await db.select().from(sshKeys).where(and(eq(sshKeys.teamId, teamId), eq(sshKeys.fingerprint, fingerprint)));
  return row;
}
export async function deleteSshKey(db: DbOrTx, id: string): Promise<void> {
  await db.delete(sshKeys).where(eq(sshKeys.id, id));
}
