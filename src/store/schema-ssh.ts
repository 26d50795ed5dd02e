// SSH public keys members register to reach their team's instances through Gantry's SSH
// endpoint (src/gateway/ssh). A key belongs to a member; access follows the member's role and
// status and the team's state, read at each authentication. Members are never deleted and the
// domain checks the member before writing, so no foreign keys (as the other schema-*.ts files).
import { pgTable, text, timestamp, index, uniqueIndex } from 'drizzle-orm/pg-core';

export const sshKeys = pgTable('ssh_keys', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  memberId: text('member_id').notNull(),
  name: text('name').notNull(),
  /** ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa */
  keyType: text('key_type').notNull(),
  /** the key's wire blob, base64, as in an authorized_keys line (no comment) */
  publicKey: text('public_key').notNull(),
  /** SHA256:… as `ssh-keygen -lf` prints it: what the SSH endpoint looks a key up by */
  fingerprint: text('fingerprint').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
}, (t) => [
  // Within a team a key names one member: the endpoint finds the instance's team from the
  // SSH user name, then the member by the key. Across teams the same person may use one key.
  uniqueIndex('ssh_keys_team_fingerprint').on(t.teamId, t.fingerprint),
  index('ssh_keys_member').on(t.memberId),
]);
