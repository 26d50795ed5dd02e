// The embedded database on a thread of its own (see pglite-remote.ts for why). Runs PGlite
// and answers the main thread's messages: queries, transactions held open across messages,
// dumps, close. PGlite serializes everything itself: a query outside a transaction waits
// for an open transaction to end, exactly as when PGlite runs on the main thread.
// Procedures: modules named at start whose functions run here, next to the data, over a
// Drizzle instance of their own (the usage writer builds its large batches here, not on the
// main thread that serves HTTP).
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import type { Db } from './db-types.ts';
import { keepPgliteFilesPrivate } from './pglite-modes.ts';
import { pgliteOptions } from './pglite-options.ts';
import type { CompiledModule } from './pglite-artifacts.ts';
import { copyTemplate } from './pglite-template.ts';
import { collectAfterStart } from '../lib/gc.ts';

export interface WorkerInit {
  dataDir?: string | undefined;
  loadDataDir?: Blob | undefined;
  /** a migrated empty data dir (pglite-template.ts) copied into dataDir before PGlite opens it: a first start */
  template?: string | undefined;
  /** URLs of modules exporting `procedures: Record<string, Procedure>`. */
  procedures?: string[];
  /** PostgreSQL's shared_buffers (pgliteOptions) */
  sharedBuffers?: string | undefined;
  /** PGlite's WebAssembly, compiled by the main thread (pglite-artifacts.ts) */
  wasmModule?: CompiledModule | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a procedure declares its own argument type; the registry holds them all
export type Procedure = (db: Db, args: any) => Promise<unknown>;

export type Request =
  | { id: number; op: 'query'; tx?: number; sql: string; params?: unknown[]; rowMode?: 'array' | 'object'; rawTypes?: number[] }
  | { id: number; op: 'exec'; tx?: number; sql: string }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'dump'; compression: 'gzip' | 'none' | 'auto' }
  | { id: number; op: 'call'; name: string; args: unknown }
  | { id: number; op: 'close' };

export type Reply = { id: number; ok: true; value?: unknown } | { id: number; ok: false; error: Record<string, unknown> };

const port = parentPort!;
const init = workerData as WorkerInit;
if (init.dataDir) keepPgliteFilesPrivate();
if (init.template && init.dataDir) copyTemplate(init.template, init.dataDir);
const pg = new PGlite(pgliteOptions(init));
const procedures = loadProcedures(init.procedures ?? []);
// this thread's start garbage (lib/gc.ts), once the database and the procedures are loaded
void Promise.all([pg.waitReady, procedures]).then(() => collectAfterStart(), () => {});
const localDb = drizzle(pg) as unknown as Db;

async function loadProcedures(urls: string[]): Promise<Map<string, Procedure>> {
  const all = new Map<string, Procedure>();
  for (const url of urls) {
    const mod = (await import(url)) as { procedures: Record<string, Procedure> };
    for (const [name, fn] of Object.entries(mod.procedures)) all.set(name, fn);
  }
  return all;
}
interface OpenTx {
  tx: Transaction;
  end: (commit: boolean) => void;
  finished: Promise<void>; // the COMMIT or ROLLBACK, reported to whoever sends 'end'
}

const open = new Map<number, OpenTx>();
const identity = (v: unknown) => v;
const ROLLBACK = Symbol('rollback');

// Only the fields that can cross to the main thread: PGlite attaches `queryOptions` (with the
// parser functions) to its errors, and posting a function throws DataCloneError, which used to
// kill this thread on the first database error (unique violation, syntax error...).
function errorOf(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: String(e) };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    try { out[k] = structuredClone(v); } catch { /* not cloneable: left out */ }
  }
  return { ...out, name: e.name, message: e.message, stack: e.stack };
}

async function handle(m: Request): Promise<unknown> {
  await pg.waitReady;
  switch (m.op) {
    case 'query': {
      const on = m.tx === undefined ? pg : open.get(m.tx)!.tx;
      const parsers = Object.fromEntries((m.rawTypes ?? []).map((t) => [t, identity]));
      return on.query(m.sql, m.params, { ...(m.rowMode ? { rowMode: m.rowMode } : {}), parsers });
    }
    case 'exec':
      return (m.tx === undefined ? pg : open.get(m.tx)!.tx).exec(m.sql);
    case 'begin':
      // Holds the transaction open across messages until 'end'; answers once it has begun.
      return new Promise((begun, failed) => {
        const entry = {} as OpenTx;
        let started = false;
        entry.finished = pg.transaction(async (tx) => {
          entry.tx = tx;
          const decided = new Promise<boolean>((end) => { entry.end = end; });
          open.set(m.id, entry);
          started = true;
          begun(m.id);
          if (!(await decided)) throw ROLLBACK;
        }).then(() => undefined, (e) => {
          if (e === ROLLBACK) return;
          if (!started) return failed(e);
          throw e;
        });
        entry.finished.catch(() => {}); // reported to 'end'
      });
    case 'end': {
      const t = open.get(m.tx)!;
      open.delete(m.tx);
      t.end(m.commit);
      return t.finished;
    }
    case 'call': {
      const fn = (await procedures).get(m.name);
      if (!fn) throw new Error(`no procedure ${m.name} on the database thread`);
      return fn(localDb, m.args);
    }
    case 'dump':
      return pg.dumpDataDir(m.compression);
    case 'close':
      await pg.close();
      return undefined;
  }
}

port.on('message', (m: Request) => {
  const fail = (e: unknown) => port.postMessage({ id: m.id, ok: false, error: errorOf(e) } satisfies Reply);
  handle(m).then(
    // A value that cannot be posted becomes this call's error rather than an uncaught
    // exception that would end the thread (and every other caller's call with it).
    (value) => { try { port.postMessage({ id: m.id, ok: true, value } satisfies Reply); } catch (e) { fail(e); } },
    fail,
  );
});
