// Whether serve can listen where it is told, asked before anything starts: a port already in
// use was a stack trace after the store had been opened, migrated and seeded (issue 45). Here
// it is one line naming the address and the setting to change. The probe binds and lets go at
// once; a server that takes the port in between is told the same way by listen itself.
import { createServer } from 'node:net';

/** Why `host:port` cannot be listened on, in one sentence that says what to set; undefined if it can. */
export function listenProblem(err: unknown, host: string, port: number): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  if (code === 'EADDRINUSE') return `${address} is already in use (another Gantry, or another server): stop it, or set PORT (and HOST) to listen elsewhere`;
  if (code === 'EACCES') return `not allowed to listen on ${address} (ports below 1024 need privileges): set PORT to 1024 or above, or run behind a proxy`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine, so ${address} cannot be listened on: set HOST to one of its addresses (0.0.0.0 for all)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `HOST ${host} does not resolve to an address: set HOST to one of this machine's addresses`;
  return undefined;
}

/** Binds `host:port` and lets it go; resolves to the problem in one sentence, or undefined. Port 0 (any) always can. */
export async function checkListen(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return undefined;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (e) {
    const problem = listenProblem(e, host, port);
    if (problem === undefined) throw e;
    return problem;
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return undefined;
}
