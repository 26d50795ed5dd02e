// CLI entry: serve | migrate | admin …. The only reader of process.env.
import { writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, ConfigError, type Config } from './config.ts';
import { openStore, migrateStore } from './store/db.ts';
import { systemClock } from './lib/clock.ts';
import { bootstrap, type Credentials } from './domain/bootstrap.ts';
import { buildApp } from './app.ts';
import { runAdminCli } from './cli/admin.ts';
import { USAGE_PROCEDURES } from './domain/usage/procedures.ts';

async function prepare(config: Config) {
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, procedures: [USAGE_PROCEDURES] });
  await migrateStore(store);
  const ctx = { db: store.db, clock: systemClock };
  const creds = await bootstrap(ctx, { seedVoucherUnits: config.seedVoucherUnits });
  const credentialsPath = join(config.dataDir, 'credentials.json');
  if (creds) writeCredentials(credentialsPath, creds);
  return { store, creds, credentialsPath };
}

function writeCredentials(path: string, creds: Credentials): void {
  const { adminToken, userId, ownerMemberId, keyId, apiKey } = creds;
  writeFileSync(path, JSON.stringify({ adminToken, userId, ownerMemberId, keyId, apiKey }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
}

async function serve(config: Config): Promise<void> {
  const { store, creds, credentialsPath } = await prepare(config);
  const { app } = await buildApp({ config, store, clock: systemClock });
  // A dead database thread leaves nothing this process can do: exit so a supervisor restarts
  // it; the usage journal is replayed at the next start, so no answered request is lost.
  void store.failure?.then((e) => {
    app.log.fatal({ err: e }, 'the embedded database stopped; exiting');
    process.exit(1);
  });
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  const address = await app.listen({ host: config.host, port: config.port });
  const lines = [`Gantry listening on ${address}  (docs: ${address}/docs)`];
  if (creds) {
    lines.push('First start: created an operator token and a first team. These are shown once:');
    lines.push(`  adminToken    ${creds.adminToken}`);
    lines.push(`  userId        ${creds.userId}`);
    lines.push(`  ownerMemberId ${creds.ownerMemberId}`);
    lines.push(`  keyId         ${creds.keyId}`);
    lines.push(`  apiKey        ${creds.apiKey}`);
    lines.push(`Saved to ${credentialsPath} (mode 0600).`);
  } else {
    lines.push(existsSync(credentialsPath)
      ? `Using the existing store; first-start credentials are in ${credentialsPath}`
      : 'Using the existing store (its first-start credentials were written on the machine that created it).');
  }
  process.stdout.write(lines.join('\n') + '\n');
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
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
  if (command === 'serve') return serve(config);
  if (command === 'migrate') {
    const { store, creds, credentialsPath } = await prepare(config);
    process.stdout.write(`migrated${creds ? `; first-start credentials written to ${credentialsPath}` : ''}\n`);
    await store.close();
    return;
  }
  if (command === 'admin') {
    process.exitCode = await runAdminCli(rest, process.env, config);
    return;
  }
  process.stderr.write(`unknown command "${command}". Usage: gantry serve | migrate | admin <command>\n`);
  process.exit(2);
}

await main(process.argv.slice(2));
