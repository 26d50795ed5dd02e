// The commands: serve | migrate | admin …, run by the entry (src/main.ts). With it, the only
// reader of process.env.
import { loadConfig, ConfigError, type Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import type { EmbeddedStart } from '../store/embedded-start.ts';
import { DataDirError, ensurePrivateDir } from '../lib/private-files.ts';
import type { Credentials } from '../domain/bootstrap.ts';
import type { Ctx } from '../domain/context.ts';
import { credentialsPath, findCredentials, saveCredentials, storeOf, storeWords, type Saved } from './credentials.ts';
// Anything else loads with the command that uses it (the store's errors, the listen check,
// the collector, admin.ts): `gantry admin …` is an HTTP client and starts with config.ts,
// credentials.ts and admin.ts (bench/README.md, "The CLI's start").

interface Prepared {
  store: Store;
  creds: Credentials | null;
  /** Where this store's credentials are (saved now, or by an earlier start), or undefined if not in this data dir. */
  credentialsPath: string | undefined;
  /** credentials.json, left as it was: it holds another store's credentials (credentials.ts). */
  keptOther?: Saved['keptOther'];
  /** Why the first start's credentials could not be saved (they were printed at once instead). */
  saveError?: Error;
  /**
   * The first start's demo media catalogue, under way (it never fails: a failure is said on
   * stderr). Left running while the app is built: serve listens once both are done.
   */
  seeded: Promise<void>;
}

// The store, the app and their dependencies load only for serve and migrate: `gantry admin …`
// is mostly an HTTP client and starts in a fraction of the time without them.
/**
 * The data dir comes first, before anything is committed: the first start's operator token
 * is saved in it, and a token committed but never saved is lost (only its hash is stored).
 * Then the embedded database's thread starts, before this thread loads the ~1,000 modules of
 * the store and the app (about a second): its initdb or recovery runs meanwhile.
 */
async function startDatabase(config: Config, command: string): Promise<EmbeddedStart | undefined> {
  ensurePrivateDir(config.dataDir);
  if (config.databaseUrl) return undefined;
  const [{ startEmbedded }, { findTemplate }, { USAGE_PROCEDURES }] = await Promise.all([
    import('../store/embedded-start.ts'), import('../store/pglite-template.ts'), import('../domain/usage/procedures-url.ts'),
  ]);
  return startEmbedded({
    dataDir: config.dataDir, sharedBuffers: config.pgliteSharedBuffers, command, procedures: [USAGE_PROCEDURES],
    template: findTemplate(), // a first start copies the migrated template made at install instead of running initdb
  });
}

async function prepare(config: Config, embedded: EmbeddedStart | undefined): Promise<Prepared> {
  const [{ openStore, migrateStore }, { systemClock }, { bootstrap }, { standaloneCtx }] = await Promise.all([
    import('../store/db.ts'), import('../lib/clock.ts'), import('../domain/bootstrap.ts'), import('../domain/context.ts'),
  ]).catch(async (e) => {
    await embedded?.remote.close().catch(() => {});
    embedded?.lock?.release();
    throw e;
  });
  const store = await openStore({ databaseUrl: config.databaseUrl, started: embedded });
  const from = store.lockTakenOverFrom;
  if (from) {
    process.stderr.write(`Took over ${config.dataDir} from pid ${from.pid} on ${from.host} ("${from.command}" since ${from.since}), `
      + 'which did not shut down cleanly.\n');
  }
  await migrateStore(store);
  const ctx = standaloneCtx(store.db, systemClock);
  const creds = await bootstrap(ctx, { seedVoucherUnits: config.seedVoucherUnits });
  const storeId = storeOf(config.databaseUrl);
  if (creds) {
    let saved: Saved;
    try {
      saved = saveCredentials(config.dataDir, storeId, creds);
    } catch (e) {
      // The token is committed: printed now, it is not lost whatever happens next.
      const saveError = e as Error;
      const path = credentialsPath(config.dataDir, storeId);
      process.stdout.write(['First start: created an operator token and a first team. These are shown once:', ...credentialLines(creds),
        `Could not save them to ${path} (${saveError.message}): copy them now. `
        + 'A lost operator token can be replaced with `gantry admin token rotate`.'].join('\n') + '\n');
      return { store, creds, credentialsPath: path, saveError, seeded: Promise.resolve() };
    }
    return { store, creds, credentialsPath: saved.path, keptOther: saved.keptOther, seeded: seedMediaDemoFiles(config, ctx) };
  }
  let existing: string | undefined;
  try {
    existing = findCredentials(config.dataDir, storeId)?.path;
  } catch { /* a file that is not JSON: said by the commands that read it */ }
  return { store, creds, credentialsPath: existing, seeded: Promise.resolve() };
}

/**
 * The first start's demo media catalogue: its files go to the blob store, which the store's
 * seeders do not reach. After the credentials are saved; a blob store that fails only costs
 * the demo (said on stderr; `gantry admin media import` adds records any time).
 */
async function seedMediaDemoFiles(config: Config, ctx: Ctx): Promise<void> {
  try {
    const [{ openBlobStore }, { seedMediaDemo }] = await Promise.all([import('../store/blobs/index.ts'), import('../domain/media/demo.ts')]);
    const blobs = await openBlobStore(config.blobs);
    try {
      await seedMediaDemo(ctx, blobs);
    } finally {
      await blobs.close();
    }
  } catch (e) {
    process.stderr.write(`The demo media catalogue was not seeded: ${(e as Error).message}\n`);
  }
}

function keptOtherLine(kept: NonNullable<Saved['keptOther']>, dataDir: string): string {
  return `${kept.path} holds the credentials of ${storeWords(kept.store, dataDir)} and was left as it is.`;
}

function credentialLines(creds: Credentials): string[] {
  return [
    `  adminToken    ${creds.adminToken}`,
    `  userId        ${creds.userId}`,
    `  ownerMemberId ${creds.ownerMemberId}`,
    `  keyId         ${creds.keyId}`,
    `  apiKey        ${creds.apiKey}`,
  ];
}

/** How long a shutdown waits for requests in flight before it cuts their connections. */
const SHUTDOWN_GRACE_MS = 30_000;

/** A serve that cannot listen: one line, exit 1 (listen-check.ts). */
function cannotListen(problem: string): never {
  process.stderr.write(`gantry serve: ${problem}\n`);
  process.exit(1);
}

async function serve(config: Config): Promise<void> {
  const [{ checkListen, listenProblem }, { collectAfterStart }] = await Promise.all([import('./listen-check.ts'), import('../lib/gc.ts')]);
  // before the data dir, the database or the seeding: a port taken costs nothing to be told
  const problem = await checkListen(config.host, config.port);
  if (problem !== undefined) cannotListen(problem);
  const prepared = prepare(config, await startDatabase(config, 'serve'));
  prepared.catch(() => {}); // awaited below; a failure there is reported there
  const [{ buildApp, closeApp }, { systemClock }] = await Promise.all([import('../app.ts'), import('../lib/clock.ts')]);
  const { store, creds, credentialsPath, keptOther, saveError, seeded } = await prepared;
  // the demo catalogue's queries run on the database thread while this one builds the app
  const [{ app, services }] = await Promise.all([buildApp({ config, store, clock: systemClock }), seeded]);
  // A dead database thread leaves nothing this process can do: exit so a supervisor restarts
  // it; the usage journal is replayed at the next start, so no answered request is lost.
  void store.failure?.then((e) => {
    app.log.fatal({ err: e }, 'the embedded database stopped; exiting');
    process.exit(1);
  });
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await closeApp(app, SHUTDOWN_GRACE_MS);
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  const address = await app.listen({ host: config.host, port: config.port }).catch(async (e: unknown) => {
    // taken since the check: the same line, the store closed first
    const late = listenProblem(e, config.host, config.port);
    if (late === undefined) throw e;
    await closeApp(app, 0).catch(() => {});
    await store.close().catch(() => {});
    return cannotListen(late);
  });
  collectAfterStart(); // the start's garbage (lib/gc.ts): ~140 MB of idle RSS
  // on a port the system chose, endpoint URLs name the one it chose
  if (config.port === 0 && !process.env.GANTRY_PUBLIC_URL) config.serverless.publicBaseUrl = address;
  const lines = [`Gantry listening on ${address}  (docs: ${address}/docs)`];
  const ssh = await services.ssh.listen(); // GANTRY_SSH_LISTEN; off when unset
  if (ssh) lines.push(`SSH listening on ${ssh.host.includes(':') ? `[${ssh.host}]` : ssh.host}:${ssh.port}  (host key ${services.ssh.hostKey?.fingerprint})`);
  if (creds && saveError) {
    lines.push(`First start: the credentials are printed above only; they could not be saved to ${credentialsPath}.`);
  } else if (creds) {
    lines.push('First start: created an operator token and a first team. These are shown once:');
    lines.push(...credentialLines(creds), `Saved to ${credentialsPath} (mode 0600).`);
    if (keptOther) lines.push(keptOtherLine(keptOther, config.dataDir));
  } else {
    lines.push(credentialsPath
      ? `Using the existing store; first-start credentials are in ${credentialsPath}`
      : 'Using the existing store (its first-start credentials were written on the machine that created it).');
  }
  process.stdout.write(lines.join('\n') + '\n');
}

export const USAGE = `usage: gantry <command>

  serve       start the server (what npm start runs): the embedded store in GANTRY_DATA_DIR
              (default ./data), or PostgreSQL at DATABASE_URL; HOST and PORT say where to listen
  migrate     bring the store's schema up to date (a first start's seeding included), then exit
  backup DIR  copy the embedded store (database, usage journal, secret.key, credentials,
              local blobs) into a new directory; the server must be stopped (PostgreSQL:
              pg_dump or PITR, docs/production.md)
  restore DIR put a backup into GANTRY_DATA_DIR, which must be empty or not exist
  doctor      check what this configuration needs (the store, Redis, the blob store, the compute
              driver and its engine, GPUs, each model upstream, the public URL and TLS), a line
              each with what to do; exit 1 when a check fails
  admin …     the operator CLI: gantry admin help lists its commands
  help        this text (also --help, -h)

Settings are read from the environment, not from flags (docs/configuration.md):
  PORT=9000 DATABASE_URL=postgres://… gantry serve`;

const HELP = new Set(['help', '--help', '-h']);
/** The commands of this file (admin has a help of its own). */
const OWN_COMMANDS = new Set(['serve', 'migrate', 'backup', 'restore', 'doctor']);

/** What is wrong with the command line before anything starts, or undefined. */
function commandLineProblem(command: string | undefined, rest: string[]): string | undefined {
  if (command === undefined) return 'no command given (gantry serve starts the server)';
  if (command === 'serve' || command === 'migrate' || command === 'doctor') {
    if (!rest.length) return undefined;
    const [first] = rest;
    return first!.startsWith('-')
      ? `unknown option "${first}" for gantry ${command}: it takes none (settings come from the environment, e.g. PORT=9000 gantry ${command})`
      : `gantry ${command} takes no arguments, got "${rest.join(' ')}"`;
  }
  if (command === 'backup' || command === 'restore') {
    const what = command === 'backup' ? 'the directory to write the backup into' : 'the backup\'s directory';
    const option = rest.find((a) => a.startsWith('-'));
    if (option !== undefined) return `unknown option "${option}" for gantry ${command}: it takes one argument, ${what}`;
    if (rest.length !== 1) return `gantry ${command} takes one argument, ${what}${rest.length ? `; got ${rest.length}: ${rest.join(' ')}` : ''}`;
    return undefined;
  }
  if (command === 'admin') return undefined;
  return command.startsWith('-') ? `unknown option "${command}"` : `unknown command "${command}"`;
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // Help and a wrong command line are answered before the configuration is read: they need none.
  if ((command !== undefined && HELP.has(command)) || (OWN_COMMANDS.has(command ?? '') && rest.some((a) => HELP.has(a)))) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const problem = commandLineProblem(command, rest);
  if (problem !== undefined) {
    process.stderr.write(`gantry: ${problem}\n\n${USAGE}\n`);
    process.exit(2);
  }
  // Before anything is created: the data dir, PGlite's files, the journal, credentials and
  // keys are for this user alone (files 0600, directories 0700), whatever umask we inherit.
  process.umask(0o077);
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(e.message + '\n');
      process.exit(2);
    }
    throw e;
  }
  try {
    if (command === 'serve') return await serve(config);
    if (command === 'migrate') return await migrate(config);
    if (command === 'doctor') return await doctor(config);
    if (command === 'backup' || command === 'restore') return await backupOrRestore(config, command, rest[0]!);
  } catch (e) {
    // Refusals an operator acts on: said in one sentence, not as a stack trace.
    const [{ DataDirLockedError }, { DatabaseConnectError }] = await Promise.all([import('../store/data-dir-lock.ts'), import('../store/pg-connect.ts')]);
    if (e instanceof DataDirError || e instanceof DatabaseConnectError) {
      const advice = e instanceof DataDirLockedError ? ' Stop that process first, or set DATABASE_URL to run several replicas on one PostgreSQL.' : '';
      process.stderr.write(`gantry ${command}: ${e.message}${advice}\n`);
      process.exit(1);
    }
    throw e;
  }
  const { runAdminCli } = await import('./admin.ts');
  process.exitCode = await runAdminCli(rest, process.env, config);
}

/** `gantry backup DIR` / `gantry restore DIR` (backup.ts): a refusal is one sentence and exit 1. */
async function backupOrRestore(config: Config, command: 'backup' | 'restore', dir: string): Promise<void> {
  const { backup, restore, BackupError } = await import('./backup.ts');
  try {
    process.stdout.write((command === 'backup' ? backup(config, dir) : restore(config, dir)) + '\n');
  } catch (e) {
    // a refusal, or the file system's own error (no space, no permission): one line, nothing left half-made
    const fsError = typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).syscall !== undefined;
    if (!(e instanceof BackupError) && !fsError) throw e;
    process.stderr.write(`gantry ${command}: ${(e as Error).message}\n`);
    process.exitCode = e instanceof BackupError ? e.exitCode : 1;
  }
}

async function doctor(config: Config): Promise<void> {
  const { doctorChecks, doctorReport } = await import('./doctor.ts');
  const { text, failed } = doctorReport(await doctorChecks(config, process.env));
  process.stdout.write(text + '\n');
  process.exitCode = failed ? 1 : 0;
}

async function migrate(config: Config): Promise<void> {
  const { store, creds, credentialsPath, keptOther, saveError, seeded } = await prepare(config, await startDatabase(config, 'migrate'));
  await seeded;
  process.stdout.write(`migrated${creds && !saveError ? `; first-start credentials written to ${credentialsPath}` : ''}\n`);
  if (creds && keptOther) process.stdout.write(keptOtherLine(keptOther, config.dataDir) + '\n');
  if (saveError) process.exitCode = 1;
  await store.close();
}

