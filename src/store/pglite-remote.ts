// The embedded database (PGlite, PostgreSQL compiled to WebAssembly) runs on a worker thread
// and this is its stand-in on the main thread, with the part of PGlite's interface Drizzle
// uses: query, exec, transaction. Why: PGlite executes synchronously on the thread that owns
// it, so on the main thread every statement stops HTTP for its whole duration; on its own
// thread it uses the second core and the server keeps answering (bench/gateway).
import { Worker } from 'node:worker_threads';
import type { Reply, Request, WorkerInit } from './pglite-worker.ts';

type Op = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface QueryOptions {
  rowMode?: 'array' | 'object';
  /** Drizzle passes identity parsers for the types it reads as text (dates, intervals): those go over as type ids. */
  parsers?: Record<number, unknown>;
}

export interface RemoteTx {
  query<T>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<{ rows: T[]; affectedRows?: number; fields: unknown[] }>;
  exec(sql: string): Promise<unknown[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

/**
 * The database thread's young generation. V8 sizes it for the machine (here it grew to ~120 MB
 * under load, holding ~20 MB live); the thread's garbage is short-lived query buffers, and at
 * 32 MB the gateway bench's CPU per request is within noise of the default while the process
 * under load is 60–80 MB smaller (bench/README.md, "Memory"). 4–8 MB cost up to 40 % CPU.
 * This limit holds where no `--max-semi-space-size` flag is given (tests, an operator's own
 * flags): the flag `gantry serve` sets (lib/malloc-tuning.ts) overrides it in every thread, so a
 * served database thread's young generation is two 8 MB semi-spaces (measured: 16 MB).
 */
export const DB_THREAD_YOUNG_GENERATION_MB = 32;

export class RemotePGlite {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private failed: Error | null = null;
  private closing = false;
  private lost!: (e: Error) => void;
  readonly waitReady: Promise<void>;
  /** Resolves if the database thread dies while the store is open (never after close()). */
  readonly failure: Promise<Error> = new Promise((resolve) => { this.lost = resolve; });

  constructor(init: WorkerInit) {
    this.worker = new Worker(new URL('./pglite-thread.ts', import.meta.url), { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: DB_THREAD_YOUNG_GENERATION_MB } });
    this.worker.on('message', (r: Reply) => {
      const c = this.calls.get(r.id);
      if (!c) return;
      this.calls.delete(r.id);
      if (r.ok) c.resolve(r.value);
      else c.reject(Object.assign(new Error(String(r.error.message)), r.error));
    });
    const fail = (e: Error) => {
      // Keep the first reason: terminate() after close() also fires 'exit', and callers should
      // read 'the database is closed', not 'the database thread exited (code 1)'.
      this.failed ??= e;
      for (const c of this.calls.values()) c.reject(this.failed);
      this.calls.clear();
      if (!this.closing) this.lost(this.failed);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the database thread exited (code ${code})`)));
    this.waitReady = this.call({ op: 'exec', sql: 'select 1' }).then(() => undefined);
  }

  // biome-ignore lint/suspicious/noExplicitAny: each op's answer is typed by the public method that sends it
  private call(op: Op): Promise<any> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ ...op, id });
    });
  }

  private queryOp(sql: string, params: unknown[] | undefined, opts: QueryOptions | undefined, tx?: number): Op {
    return {
      op: 'query', sql, ...(params ? { params } : {}), ...(tx !== undefined ? { tx } : {}),
      ...(opts?.rowMode ? { rowMode: opts.rowMode } : {}),
      ...(opts?.parsers ? { rawTypes: Object.keys(opts.parsers).map(Number) } : {}),
    };
  }

  query<T>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<{ rows: T[]; affectedRows?: number; fields: unknown[] }> {
    return this.call(this.queryOp(sql, params, opts));
  }

  exec(sql: string): Promise<unknown[]> {
    return this.call({ op: 'exec', sql });
  }

  /** Runs `fn` in one transaction held open on the database thread; commits unless it throws. */
  async transaction<T>(fn: (tx: RemoteTx) => Promise<T>): Promise<T> {
    const id: number = await this.call({ op: 'begin' });
    let ended = false;
    const end = (commit: boolean) => {
      ended = true;
      return this.call({ op: 'end', tx: id, commit });
    };
    const tx: RemoteTx = {
      query: (sql, params, opts) => this.call(this.queryOp(sql, params, opts, id)),
      exec: (sql) => this.call({ op: 'exec', sql, tx: id }),
      rollback: async () => { await end(false); },
      get closed() { return ended; },
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (e) {
      if (!ended) await end(false).catch(() => {});
      throw e;
    }
    if (!ended) await end(true);
    return result;
  }

  /** Runs a procedure (see pglite-worker.ts) on the database thread. */
  procedure<T>(name: string, args: unknown): Promise<T> {
    return this.call({ op: 'call', name, args });
  }

  dumpDataDir(compression: 'gzip' | 'none' | 'auto' = 'auto'): Promise<File | Blob> {
    return this.call({ op: 'dump', compression });
  }

  /** Whether the database thread keeps the process alive (it does, as a Worker does; a store kept idle for later need not). */
  keepProcessAlive(on: boolean): void {
    if (on) this.worker.ref();
    else this.worker.unref();
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.failed) await this.call({ op: 'close' });
    this.failed = new Error('the database is closed');
    await this.worker.terminate();
  }
}
