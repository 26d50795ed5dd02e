// buildTestApp: a Gantry app on a fresh copy of a migrated, bootstrapped store.
// PGlite (default): the store is built once per machine and cached as a dump, then loaded
// per app, uncompressed (gunzip would add ~0.25 s to every store). PostgreSQL (TEST_DATABASE_URL): a template database,
// cloned per app with CREATE DATABASE … TEMPLATE.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import pg from 'pg';
import { buildApp, closeApp, type BuiltApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openStore, migrateStore, type Store } from '../../src/store/db.ts';
import { findTemplate, migrationsHash } from '../../src/store/pglite-template.ts';
import { startEmbedded } from '../../src/store/embedded-start.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { standaloneCtx } from '../../src/domain/context.ts';
import { USAGE_PROCEDURES } from '../../src/domain/usage/procedures.ts';
import { bootstrap, type Credentials } from '../../src/domain/bootstrap.ts';
import { claimSetting, getSetting } from '../../src/store/settings.ts';
import { leaseTemplateStore } from './store-pool.ts';
import type { App } from '../../src/http/types.ts';
import type { Mailer } from '../../src/domain/mail/mailer.ts';

const CREDS_KEY = 'test_credentials';

function templateHash(): string {
  const h = createHash('sha256').update(migrationsHash());
  // Seed code shapes the template too: any file under src/ named *seed* or *bootstrap*.
  const src = new URL('../../src/', import.meta.url);
  for (const f of (readdirSync(src, { recursive: true }) as string[]).sort()) {
    if (/(seed|bootstrap)[^/]*\.ts$/.test(f) && !f.endsWith('.test.ts')) h.update(readFileSync(new URL(f, src)));
  }
  return h.digest('hex').slice(0, 16);
}

async function seed(store: Store): Promise<void> {
  await migrateStore(store);
  const ctx = standaloneCtx(store.db, new ManualClock());
  const creds = await bootstrap(ctx, { seedVoucherUnits: 1_000_000n });
  if (creds) await claimSetting(store.db, CREDS_KEY, creds);
}

/** The seeded, migrated template's dump, made once per machine (a file under the OS's tmp): a store from it skips initdb */
export async function pgliteTemplate(): Promise<Blob> {
  const dir = join(tmpdir(), 'gantry-test');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `template-${templateHash()}.tar`);
  if (!existsSync(file)) {
    const store = await openStore({});
    await seed(store);
    const dump = await store.pglite!.dumpDataDir('none');
    await store.close();
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, file); // atomic: parallel test files never read a half-written dump
  }
  return new Blob([readFileSync(file)]);
}

/**
 * A migrated store that was never bootstrapped, as a first start finds it: the install's
 * template (npm install made it: initdb and every migration) copied into a data dir of its
 * own, removed on close; where there is none, initdb and the migrations here (~5 s of CPU).
 */
export async function openMigratedStore(): Promise<Store> {
  const template = findTemplate();
  if (!template) {
    const fresh = await openStore({});
    await migrateStore(fresh);
    return fresh;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-migrated-'));
  const store = await openStore({ started: startEmbedded({ dataDir, template }) });
  await migrateStore(store); // nothing left to apply: the template is this tree's
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return store;
}

async function postgresClone(adminUrl: string): Promise<string> {
  const tpl = `gantry_tpl_${templateHash()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(727002)');
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [tpl]);
    if (!rowCount) {
      await admin.query(`create database ${tpl}`);
      const store = await openStore({ databaseUrl: withDb(adminUrl, tpl), poolSize: 2 });
      await seed(store);
      await store.close();
    }
    const name = `gantry_t_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${name} template ${tpl}`);
    await admin.query('select pg_advisory_unlock(727002)');
    return withDb(adminUrl, name);
  } finally {
    await admin.end();
  }
}

function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = '/' + db;
  return u.toString();
}

export interface TestApp extends BuiltApp {
  app: App;
  store: Store;
  clock: ManualClock;
  creds: Credentials;
  config: Config;
  close(): Promise<void>;
}

/** A fresh store (a copy of the template) and an app over it. */
export async function openTestStore(): Promise<Store> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (!pgUrl && process.env.GANTRY_TEST_STORE_POOL === 'off') return openStore({ loadDataDir: await pgliteTemplate(), procedures: [USAGE_PROCEDURES] }); // bench/test-tiers.ts's baseline
  if (!pgUrl) {
    // a warm store of this process put back to the template, or a new one from it (store-pool.ts)
    const remote = await leaseTemplateStore(pgliteTemplate);
    return openStore({ started: { remote, lock: undefined, dataDir: undefined }, procedures: [USAGE_PROCEDURES] });
  }
  const url = await postgresClone(pgUrl);
  const store = await openStore({ databaseUrl: url, poolSize: 10 });
  const close = store.close;
  store.close = async () => {
    await close();
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`).finally(() => admin.end());
  };
  return store;
}

/** `logStream`: the app logs every level there (pino JSON lines), as it would in production with LOG_LEVEL=trace. */
export async function buildTestApp(opts: { env?: Record<string, string>; logStream?: Writable; mailer?: Mailer } = {}): Promise<TestApp> {
  const store = await openTestStore();
  // Blobs (uploaded files) in a directory of this app's own, removed with it.
  const blobDir = mkdtempSync(join(tmpdir(), 'gantry-blobs-'));
  // Suites that walk every route with wrong keys (auth contract, fuzz) make hundreds of failures
  // from one address: the auth throttle counts them all but locks out only far above that;
  // src/http/plugins/auth-throttle.test.ts sets the real limits.
  const throttle = { GANTRY_AUTH_FAILURES_PER_ADDRESS: '1000000', GANTRY_AUTH_FAILURES_PER_PREFIX: '1000000' };
  const config = loadConfig({ LOG_LEVEL: 'silent', GANTRY_DATA_DIR: join(tmpdir(), 'gantry-test-data'), GANTRY_BLOB_DIR: blobDir, ...throttle, ...opts.env });
  const clock = new ManualClock();
  // The embedded default journals usage beside the store: give this app a journal of its own.
  const journalDir = store.kind === 'pglite' ? mkdtempSync(join(tmpdir(), 'gantry-journal-')) : undefined;
  const logger = opts.logStream ? { level: 'trace', stream: opts.logStream } : false;
  const built = await buildApp({ config, store, clock, logger, ...(journalDir ? { usageJournalDir: journalDir } : {}), ...(opts.mailer ? { mailer: opts.mailer } : {}) });
  const creds = (await getSetting<Credentials>(store.db, CREDS_KEY))!;
  return {
    ...built, store, clock, creds, config,
    close: async () => {
      await closeApp(built.app, 5_000); // a test that listened may leave keep-alive connections
      await store.close();
      if (journalDir) rmSync(journalDir, { recursive: true, force: true });
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}
