// <data dir>/credentials.json: the first start's credentials, and the operator token after a
// rotation. Written atomically, 0600: a crash never leaves half a file or a readable secret.
//
// One data dir may serve more than one store (the embedded one, then PostgreSQL with the same
// GANTRY_DATA_DIR), and each store's operator token exists only in its file (the store keeps
// its hash). So the file records the store it was written for (`store`), and nothing written
// for one store replaces another's: a store whose credentials.json is taken by another gets
// a file of its own beside it, credentials-<store>.json (e.g. credentials-postgres-db1-5432-gantry.json).
// A file of an older version records no store: it is never replaced by a first start, and a
// rotation replaces it only when it holds the rotated store's current token.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Credentials } from '../domain/bootstrap.ts';
import { writePrivateFileAtomic } from '../lib/private-files.ts';

export type SavedCredentials = Partial<Credentials> & { store?: string };

const DEFAULT_FILE = 'credentials.json';

/**
 * The store a process uses, as credentials files record it: `embedded` (the store in this data
 * dir), or `postgres://host:port/database` (no user, no password: the same database reached
 * as another user is the same store).
 */
export function storeOf(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'embedded';
  try {
    const u = new URL(databaseUrl);
    const host = u.searchParams.get('host') ?? (u.hostname || 'localhost');
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || '';
    return `postgres://${host}:${u.searchParams.get('port') ?? (u.port || '5432')}/${database}`;
  } catch {
    return 'postgres://unknown';
  }
}

/** Readable words for a store, for messages. */
export function storeWords(store: string | undefined, dataDir: string): string {
  if (store === undefined) return 'a store of an older Gantry (the file does not say which)';
  return store === 'embedded' ? `the embedded store in ${dataDir}` : `PostgreSQL ${store}`;
}

/** credentials-<store>.json: the file of a store whose credentials.json holds another store's. */
export function ownFileName(store: string): string {
  return `credentials-${store.replace(/^postgres:\/\//, 'postgres-').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-+$/, '')}.json`;
}

function readFile(path: string): SavedCredentials | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as SavedCredentials;
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function readQuietly(path: string): SavedCredentials | undefined | 'unreadable' {
  try {
    return readFile(path);
  } catch {
    return 'unreadable';
  }
}

export interface CredentialsFile {
  path: string;
  /** what the file holds, undefined when there is no file there yet */
  saved: SavedCredentials | undefined;
}

/**
 * The credentials file of `store` in `dataDir`: its own file if there is one, else
 * credentials.json when it was written for that store (or by an older version, which did not
 * say). Undefined when credentials.json belongs to another store and there is no own file.
 * Throws on a file that is not JSON.
 */
export function findCredentials(dataDir: string, store: string): CredentialsFile | undefined {
  const own = join(dataDir, ownFileName(store));
  const saved = readFile(own);
  if (saved) return { path: own, saved };
  const path = join(dataDir, DEFAULT_FILE);
  const main = readFile(path);
  if (main && (main.store === undefined || main.store === store)) return { path, saved: main };
  return undefined;
}

/** The path `gantry admin` and messages name for `store`: its file, or where a first start would write it. */
export function credentialsPath(dataDir: string, store: string): string {
  try {
    return findCredentials(dataDir, store)?.path ?? join(dataDir, DEFAULT_FILE);
  } catch {
    return join(dataDir, DEFAULT_FILE);
  }
}

/**
 * The saved credentials of `store` for the operator CLI's HTTP commands: its file, else
 * credentials.json whatever store it was written for (the CLI may run without DATABASE_URL
 * against a server on PostgreSQL; a token of another store is then refused by the server).
 */
export function readCredentials(dataDir: string, store: string): SavedCredentials | undefined {
  return findCredentials(dataDir, store)?.saved ?? readFile(join(dataDir, DEFAULT_FILE));
}

function write(path: string, store: string, creds: SavedCredentials): string {
  const { adminToken, userId, ownerMemberId, keyId, apiKey } = creds;
  writePrivateFileAtomic(path, JSON.stringify({ adminToken, userId, ownerMemberId, keyId, apiKey, store }, null, 2) + '\n');
  return path;
}

export interface Saved {
  path: string;
  /** credentials.json, left as it was because it holds another store's credentials (said to the operator) */
  keptOther?: { path: string; store: string | undefined };
}

/**
 * A first start's credentials: into credentials.json unless that holds another store's (or an
 * older version's, or cannot be read: it is left as it is), then into the store's own file.
 */
export function saveCredentials(dataDir: string, store: string, creds: Partial<Credentials>): Saved {
  const own = join(dataDir, ownFileName(store));
  if (existsSync(own)) return { path: write(own, store, creds) };
  const path = join(dataDir, DEFAULT_FILE);
  const main = readQuietly(path);
  if (main === undefined || (main !== 'unreadable' && main.store === store)) return { path: write(path, store, creds) };
  return { path: write(own, store, creds), keptOther: { path, store: main === 'unreadable' ? undefined : main.store } };
}

/**
 * Put a rotated operator token in `store`'s file, keeping the rest of what it holds. A file of
 * an older version (no store recorded) is this store's when it holds the token being replaced
 * (`heldToken`: whether a token is the store's current one); otherwise it is left as it is.
 */
export function saveOperatorToken(dataDir: string, store: string, adminToken: string, heldToken: (token: string) => boolean = () => true): Saved {
  let found: CredentialsFile | undefined;
  try {
    found = findCredentials(dataDir, store);
  } catch { /* unreadable: replaced below as any file of this store would be */ }
  if (found && found.saved?.store === undefined && found.path.endsWith(DEFAULT_FILE)) {
    if (!found.saved?.adminToken || !heldToken(found.saved.adminToken)) found = undefined; // not known to be ours: kept
  }
  if (found) return { path: write(found.path, store, { ...found.saved, adminToken }) };
  return saveCredentials(dataDir, store, { adminToken });
}
