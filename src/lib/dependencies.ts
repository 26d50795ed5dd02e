// The services Gantry depends on (the database, and Redis when configured) and how a
// failure to reach one is told apart from any other error: it is never the client's fault
// nor a bug, so it is answered 503 SERVICE_NOT_AVAILABLE naming the dependency, fast.
import { AppError } from './errors.ts';

export const DEPENDENCIES = ['database', 'redis'] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

/** Thrown where code knows which dependency failed (the counters, a probe). */
export class DependencyDown extends Error {
  readonly dependency: Dependency;
  constructor(dependency: Dependency, cause?: unknown) {
    super(`${dependency} is unreachable`, cause === undefined ? undefined : { cause });
    this.dependency = dependency;
  }
}

// PostgreSQL: connection exceptions (class 08), shutdowns (57P01-57P03), too many clients.
const PG_CODES = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '57P01', '57P02', '57P03', '53300']);
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const PG_MESSAGES = [
  /Connection terminated/i, /not queryable/i, /timeout exceeded when trying to connect/i,
  /Client was closed and is not queryable/i, /Cannot use a pool after calling end/i,
];

/** The database connection failed (as opposed to a query the database refused). */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (err instanceof DependencyDown) return err.dependency === 'database';
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (PG_CODES.has(e.code) || NET_CODES.has(e.code))) return true;
    if (typeof e.message === 'string' && PG_MESSAGES.some((re) => re.test(e!.message as string))) return true;
  }
  return false;
}

/** The refusal a client gets while a dependency is down. */
export function dependencyRefusal(dependency: Dependency): AppError {
  const what = dependency === 'database' ? 'the database' : 'the shared counters (Redis)';
  return new AppError('SERVICE_NOT_AVAILABLE', `${what} cannot be reached; nothing was done or billed, retry shortly`, { dependency });
}
