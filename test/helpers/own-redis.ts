// A redis-server of the test's own on a free port, so a test can kill it and start it again
// (empty) without touching the machine's Redis. Stopped by the test, and killed if the test
// process exits first.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface OwnRedis {
  url: string;
  /** SIGKILL: everything it held is gone */
  kill(): Promise<void>;
  /** start again on the same port, empty */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGSTOP: the connection stays open but nothing is answered (a hung Redis) */
  pause(): void;
  /** SIGCONT after pause() */
  resume(): void;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    process.once('exit', () => c.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
      c.stdout!.on('data', (d) => {
        out += d;
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited ${code}:\n${out}`));
      });
    });
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  const signal = (sig: NodeJS.Signals) => () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) throw new Error('redis-server is not running');
    child.kill(sig);
  };
  return { url: `redis://127.0.0.1:${port}`, kill, start, stop: kill, pause: signal('SIGSTOP'), resume: signal('SIGCONT') };
}
