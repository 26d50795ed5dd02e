// A migrated, empty embedded database, made once after `npm install` (the postinstall script,
// src/postinstall.ts) so that a first start copies it into the data dir
// instead of running PostgreSQL's initdb and every migration in WebAssembly: measured here,
// initdb alone takes ~2.3 s and loading a template ~0.6 s. It holds the schema only: the
// first team, the operator token and everything else a start creates are made by that start.
// It is used only when it matches this install exactly (PGlite's version and the migration
// files, in its name); otherwise, or when it is missing, a first start runs initdb as before.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR } from './migrations-dir.ts';

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/gantry/', import.meta.url));

/** The migration files' contents (SQL and journal), hashed: what a migrated store holds. */
export function migrationsHash(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR).sort()) if (f.endsWith('.sql')) h.update(f).update(readFileSync(join(MIGRATIONS_DIR, f)));
  h.update(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json')));
  return h.digest('hex').slice(0, 16);
}

function pgliteVersion(): string {
  const manifest = findPackageJSON('@electric-sql/pglite', import.meta.url);
  return manifest ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'unknown';
}

export function templatePath(cacheDir = CACHE_DIR): string {
  return join(cacheDir, `pglite-${pgliteVersion()}-${migrationsHash()}.tar`);
}

/** The template's path when one matching this install exists. */
export function findTemplate(cacheDir = CACHE_DIR): string | undefined {
  const p = templatePath(cacheDir);
  return existsSync(p) ? p : undefined;
}

/** Makes the template (in memory, then written atomically) and removes stale ones. */
export async function buildTemplate(cacheDir = CACHE_DIR): Promise<string> {
  const { openStore, migrateStore } = await import('./db.ts');
  const store = await openStore({ pgliteThread: false });
  let dump: Blob;
  try {
    await migrateStore(store);
    dump = await store.pglite!.dumpDataDir('none');
  } finally {
    await store.close();
  }
  mkdirSync(cacheDir, { recursive: true });
  const file = templatePath(cacheDir);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file); // atomic: a start never reads a half-written template
  for (const f of readdirSync(cacheDir)) if (/^pglite-.*\.tar$/.test(f) && join(cacheDir, f) !== file) rmSync(join(cacheDir, f), { force: true });
  return file;
}
