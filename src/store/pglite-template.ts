// A migrated, empty embedded database, made once after `npm install` (the postinstall script,
// src/postinstall.ts) so that a first start copies it into the data dir instead of running
// PostgreSQL's initdb and every migration in WebAssembly: measured here, initdb alone takes
// ~2.3 s. It is a data directory PGlite made and shut down cleanly, copied file by file on the
// database thread before PGlite opens it, so a first start opens its database as a restart
// does; a tar loaded through PGlite's `loadDataDir` (what this was before) cost 0.2–0.4 s more,
// unpacked in JavaScript (bench/README.md, "first start"). It holds the schema only: the first
// team, the operator token and everything else a start creates are made by that start.
// It is used only when it matches this install exactly (PGlite's version and the migration
// files, in its name); otherwise, or when it is missing, a first start runs initdb as before.
// Finding and copying it is here (the database thread does both); making it, which opens a
// store, is pglite-template-build.ts's.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR } from './migrations-dir.ts';

/** Where the template is made (by `npm install`: pglite-template-build.ts) and found. */
export const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/gantry/', import.meta.url));

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
  return join(cacheDir, `pglite-${pgliteVersion()}-${migrationsHash()}`);
}

/** PostgreSQL's mark of a data directory: the file whose presence makes one hold a database. */
const MARK = 'PG_VERSION';

/** Whether a directory already holds a database (a first start is one into a dir without). */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, MARK));
}

/** The template's path when a complete one matching this install exists. */
export function findTemplate(cacheDir = CACHE_DIR): string | undefined {
  const p = templatePath(cacheDir);
  return holdsDatabase(p) ? p : undefined;
}

/**
 * Copies the template into a data dir that holds no database yet (a first start, on the
 * database thread before PGlite opens it). PG_VERSION, what makes a directory hold a database,
 * is copied last: a copy cut short (a kill) is redone whole by the next start rather than
 * opened. The files keep the template's modes, which the build made private (pglite-modes.ts).
 */
export function copyTemplate(template: string, dataDir: string): void {
  for (const name of readdirSync(template)) {
    if (name !== MARK) cpSync(join(template, name), join(dataDir, name), { recursive: true, force: true });
  }
  cpSync(join(template, MARK), join(dataDir, MARK));
}
