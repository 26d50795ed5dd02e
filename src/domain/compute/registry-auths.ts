// Private registry credentials: the password is sealed with AES-256-GCM and never returned.
import { ID_PREFIX, newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import type { Compute } from './compute.ts';
import * as q from '../../store/compute.ts';
import { checkLength } from './limits.ts';
import { bad, computeNotFound } from './errors.ts';

export interface RegistryAuthInput {
  id?: string | undefined;
  name: string;
  username: string;
  password: string;
}

export async function saveRegistryAuth(c: Compute, teamId: string, a: RegistryAuthInput): Promise<string> {
  const { ctx, secrets } = c;
  checkLength('name', a.name, 1, 255);
  checkLength('username', a.username, 1, 255);
  checkLength('password', a.password, 1, 4096);
  const passwordEnc = secrets.seal(a.password);
  if (a.id) {
    await requireRegistryAuth(ctx, teamId, a.id);
    await q.updateRegistryAuth(ctx.db, a.id, { name: a.name, username: a.username, passwordEnc });
    return a.id;
  }
  const now = ctx.clock.nowMs();
  const id = newId('auth', now);
  await q.insertRegistryAuth(ctx.db, { id, teamId, name: a.name, username: a.username, passwordEnc, createdAt: new Date(now) });
  return id;
}

/** The shape of a stored credential's id (`rga_` + 22 characters, lib/ids.ts). */
const CREDENTIAL_ID = new RegExp(`^${ID_PREFIX.auth}_[0-9a-z]{22}$`);

export function isCredentialId(s: string): boolean {
  return CREDENTIAL_ID.test(s);
}

/**
 * An inline credential `<username>:<password>` (instance and template `imageAuth`). The
 * refusal never quotes the value: it holds a password.
 */
export function parseInlineCredential(field: string, plain: string): { username: string; password: string } {
  const sep = plain.indexOf(':');
  if (sep <= 0 || sep === plain.length - 1) throw bad(field, 'must be <username>:<password>');
  return { username: plain.slice(0, sep), password: plain.slice(sep + 1) };
}

/**
 * The id of the team's stored credential `name` with these username and password: an
 * existing one when they match (each instance created from one template does not add another
 * copy), else a new one, sealed.
 */
export async function credentialIdFor(c: Compute, teamId: string, name: string, cred: { username: string; password: string }): Promise<string> {
  const same = (await q.listRegistryAuths(c.ctx.db, teamId)).filter((r) => r.name === name && r.username === cred.username);
  for (const r of same) {
    let password: string | undefined;
    try {
      password = c.secrets.open(r.passwordEnc);
    } catch { /* sealed with another key: not a match */ }
    if (password === cred.password) return r.id;
  }
  return saveRegistryAuth(c, teamId, { name, ...cred });
}

export async function requireRegistryAuth(ctx: Ctx, teamId: string, id: string): Promise<q.RegistryAuthRow> {
  const row = await q.findRegistryAuth(ctx.db, id);
  if (!row || row.teamId !== teamId) throw computeNotFound('registryAuth', id, 'registry credential');
  return row;
}

export async function deleteRegistryAuth(ctx: Ctx, teamId: string, id: string): Promise<void> {
  await requireRegistryAuth(ctx, teamId, id);
  await q.deleteRegistryAuth(ctx.db, id);
}

export async function listRegistryAuths(ctx: Ctx, teamId: string) {
  const rows = await q.listRegistryAuths(ctx.db, teamId);
  return rows.map((r) => ({ id: r.id, name: r.name, username: r.username, createdAt: String(Math.floor(r.createdAt.getTime() / 1000)) }));
}
