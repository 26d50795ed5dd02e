// <data dir>/credentials.json: the first start's credentials, and the operator token after a
// rotation. Written atomically, 0600: a crash never leaves half a file or a readable secret.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Credentials } from '../domain/bootstrap.ts';
import { writePrivateFileAtomic } from '../lib/private-files.ts';

export function credentialsPath(dataDir: string): string {
  return join(dataDir, 'credentials.json');
}

/** The saved credentials, or undefined when there is no file. Throws on a file that is not JSON. */
export function readCredentials(dataDir: string): Partial<Credentials> | undefined {
  const path = credentialsPath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<Credentials>;
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
}

export function saveCredentials(dataDir: string, creds: Partial<Credentials>): string {
  const path = credentialsPath(dataDir);
  const { adminToken, userId, ownerMemberId, keyId, apiKey } = creds;
  writePrivateFileAtomic(path, JSON.stringify({ adminToken, userId, ownerMemberId, keyId, apiKey }, null, 2) + '\n');
  return path;
}

/** Put a rotated operator token in the file, keeping the rest of what it holds. */
export function saveOperatorToken(dataDir: string, adminToken: string): string {
  let saved: Partial<Credentials> = {};
  try {
    saved = readCredentials(dataDir) ?? {};
  } catch { /* unreadable: replaced by a file holding the new token */ }
  return saveCredentials(dataDir, { ...saved, adminToken });
}
