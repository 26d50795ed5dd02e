// A PostgreSQL cluster of the test's own (initdb + pg_ctl from the machine's binaries, in a
// temp dir, run as user postgres), so a test can stop it hard and start it again without
// touching the machine's server.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './own-redis.ts';

export interface OwnPostgres {
  url: string;
  /** pg_ctl stop -m immediate: connections are cut, nothing is shut down cleanly */
  stopNow(): void;
  start(): void;
  destroy(): void;
}

function asPostgres(args: string[]): string {
  const cmd = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...args] : args;
  return execFileSync(cmd[0]!, cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 60_000 });
}

/** Whether this machine can run a cluster of our own (the fault suites skip otherwise). */
export function canRunOwnPostgres(): boolean {
  try {
    execFileSync('initdb', ['--version'], { stdio: 'ignore' });
    execFileSync('pg_ctl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-pg-'));
  const port = await freePort();
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  asPostgres(['initdb', '-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const start = () => {
    asPostgres(['pg_ctl', '-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`, 'start']);
  };
  const stopNow = () => {
    try {
      asPostgres(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch { /* already stopped */ }
  };
  start();
  process.once('exit', stopNow);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stopNow, start,
    destroy: () => {
      stopNow();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
