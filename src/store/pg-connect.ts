// What a failed connection to PostgreSQL means to the operator who set DATABASE_URL: one
// sentence naming the server and database (never the password) and what to do, instead of
// node-postgres' stack trace. `serve`, `migrate` and `admin token rotate` print it and exit 1.
import { userInfo } from 'node:os';
import type pg from 'pg';

/** PostgreSQL could not be reached or refused us at the first connection; the message says what to do. */
export class DatabaseConnectError extends Error {
  override name = 'DatabaseConnectError';
}

/** How long the first connection of a start (the migration's) may take before it fails. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Where DATABASE_URL points, without its user's password: host:port/database. */
export function describeTarget(databaseUrl: string): { where: string; host: string; port: string; database: string; user: string } {
  let u: URL;
  try {
    u = new URL(databaseUrl);
  } catch {
    return { where: 'DATABASE_URL', host: '', port: '', database: '', user: '' };
  }
  const params = u.searchParams;
  const host = params.get('host') ?? (u.hostname ? decodeURIComponent(u.hostname) : 'localhost');
  const port = params.get('port') ?? (u.port || '5432');
  const user = decodeURIComponent(u.username) || params.get('user') || userInfo().username; // node-postgres' default: the OS user
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
  return { where: `${host}:${port}/${database}`, host, port, database, user };
}

/** The error's code, looking through causes and an AggregateError's errors (one per address tried). */
function codeOf(e: unknown, depth = 0): string | undefined {
  if (!e || typeof e !== 'object' || depth > 4) return undefined;
  const err = e as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof err.code === 'string' && err.code) return err.code;
  for (const inner of err.errors ?? []) {
    const c = codeOf(inner, depth + 1);
    if (c) return c;
  }
  return codeOf(err.cause, depth + 1);
}

function messageOf(e: unknown, depth = 0): string {
  if (!e || typeof e !== 'object' || depth > 4) return String(e);
  const err = e as { message?: string; errors?: unknown[]; cause?: unknown };
  if (err.message) return err.message;
  const inner = err.errors?.[0] ?? err.cause;
  return inner === undefined ? String(e) : messageOf(inner, depth + 1);
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'no answer',
  ECONNRESET: 'the connection was reset',
  ENOENT: 'no such socket',
};

/**
 * One sentence for a failure to connect to PostgreSQL, or undefined when `e` is not one (a
 * query's own error, which the caller reports as it is).
 */
export function explainConnectError(e: unknown, databaseUrl: string): string | undefined {
  const t = describeTarget(databaseUrl);
  const code = codeOf(e);
  const message = messageOf(e);
  const server = `PostgreSQL at ${t.host}:${t.port}`;
  if (code === '3D000') {
    return `the database "${t.database}" does not exist on ${server} (DATABASE_URL). `
      + `Create it (createdb -h ${t.host} -p ${t.port} -U ${t.user} ${t.database}), or point DATABASE_URL at one that exists.`;
  }
  if (code === '28P01' || code === '28000') {
    return `${server} refused user "${t.user}" for the database "${t.database}": ${message}. `
      + 'Check the user and password in DATABASE_URL, and the server\'s pg_hba.conf.';
  }
  if (code === '57P03') return `${server} is not accepting connections yet (${message}): start Gantry again once it is up.`;
  if (code === '53300') return `${server} has no connection to spare (${message}): raise its max_connections or stop some clients.`;
  if (code !== undefined && code in NETWORK) {
    return `cannot connect to ${server} (DATABASE_URL, database "${t.database}"): ${NETWORK[code]}. `
      + 'Is PostgreSQL running there, and does DATABASE_URL name the right host and port?';
  }
  if (/timeout|timed out/i.test(message)) {
    return `cannot connect to ${server} (DATABASE_URL, database "${t.database}"): no answer within ${CONNECT_TIMEOUT_MS / 1000} s. `
      + 'Is PostgreSQL running there and reachable from this host?';
  }
  if (/SASL|password must be a string|self[- ]signed|certificate|SSL|ssl/.test(message)) {
    return `cannot connect to ${server} (DATABASE_URL, database "${t.database}"): ${message}. Check the user, password and SSL settings in DATABASE_URL.`;
  }
  return undefined;
}

/** Connect `client` (a start's first connection), a failure told as DatabaseConnectError. */
export async function connectOrExplain(client: pg.Client, databaseUrl: string): Promise<void> {
  try {
    await client.connect();
  } catch (e) {
    const t = describeTarget(databaseUrl);
    const said = explainConnectError(e, databaseUrl)
      ?? `cannot connect to PostgreSQL at ${t.host}:${t.port} (DATABASE_URL, database "${t.database}"): ${messageOf(e)}.`;
    await client.end().catch(() => {});
    throw new DatabaseConnectError(said, { cause: e });
  }
}
