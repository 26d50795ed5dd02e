// Private registry credentials: the password is sealed with AES-256-GCM and never returned.
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import * as q from '../../store/compute.ts';
import { checkLength } from './limits.ts';

export interface RegistryAuthInput {
  id?: string | undefined;
  name: string;
  username: string;
  password: string;
}

export async function saveRegistryAuth(ctx: Ctx, secrets: SecretBox, teamId: string, a: RegistryAuthInput): Promise<string> {
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

export async function requireRegistryAuth(ctx: Ctx, teamId: string, id: string): Promise<q.RegistryAuthRow> {
  const row = await q.findRegistryAuth(ctx.db, id);
  if (!row || row.teamId !== teamId) throw new AppError('RESOURCE_NOT_FOUND', `registry credential ${id} not found`, { resource: 'registryAuth', id });
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
