// The embedded database on its worker thread (pglite-remote.ts + pglite-worker.ts), seen the
// way the code sees it, through Drizzle: transactions commit and roll back, savepoints, a
// query outside an open transaction waits for it, no lost update under concurrency, database
// errors keep PostgreSQL's code, values round-trip exactly as with PGlite on the calling
// thread, data on disk and dumps survive a reopen, and a closed store rejects instead of hanging.
// Most tests run in both modes (worker thread, calling thread) so the stand-in is held to
// PGlite's own behaviour.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { setImmediate as turn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, eq, asc, TransactionRollbackError } from 'drizzle-orm';
import { pgTable, serial, text, bigint, jsonb, timestamp, integer } from 'drizzle-orm/pg-core';
import { openStore, migrateStore, type Store } from './db.ts';

const modes = [
  { name: 'worker thread', pgliteThread: true },
  { name: 'calling thread', pgliteThread: false },
] as const;

const items = pgTable('items', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
});
const counter = pgTable('counter', {
  id: integer('id').primaryKey(),
  n: integer('n').notNull(),
});
const vals = pgTable('vals', {
  id: integer('id').primaryKey(),
  big: bigint('big', { mode: 'bigint' }),
  bigNum: bigint('big_num', { mode: 'number' }),
  doc: jsonb('doc'),
  at: timestamp('at', { withTimezone: true, mode: 'date' }),
  atText: timestamp('at_text', { withTimezone: true, mode: 'string' }),
  note: text('note'),
  tags: text('tags').array(),
});

/**
 * A blank database, made once (PGlite's initdb: 5-10 s a store on a slow machine, most of this
 * file's time when each test ran its own) and loaded by every in-memory store of these tests
 * (blank rather than the tests' template: a smaller dump loads faster).
 */
let blank: Promise<Blob> | undefined;
function blankDump(): Promise<Blob> {
  blank ??= (async () => {
    const s = await openStore({ pgliteThread: false });
    try {
      return await s.pglite!.dumpDataDir('none');
    } finally {
      await s.close();
    }
  })();
  return blank;
}

async function withStore<T>(opts: Parameters<typeof openStore>[0], fn: (s: Store) => Promise<T>): Promise<T> {
  const inMemory = !opts.dataDir && !opts.loadDataDir && !opts.databaseUrl;
  const store = await openStore(inMemory ? { ...opts, loadDataDir: await blankDump() } : opts);
  try {
    await store.db.execute(sql`create table if not exists items (id serial primary key, name text not null unique)`);
    await store.db.execute(sql`create table if not exists counter (id int primary key, n int not null)`);
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Rejects if `p` has not settled within `ms`: a hang becomes a failure, not a stuck run. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms); });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Rows of a raw statement (Drizzle types `execute` on the generic Db as unknown). */
async function rows(s: Store, q: ReturnType<typeof sql>): Promise<Record<string, unknown>[]> {
  return ((await s.db.execute(q)) as unknown as { rows: Record<string, unknown>[] }).rows;
}

/**
 * Runs `statement` of an open transaction `n` times, one after another. Issued after a query
 * outside the transaction, they show whether that query waited: the database answers in the
 * order it is asked, so one that ran out of turn would have been answered before them.
 */
async function afterwards(statement: () => Promise<unknown>, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await statement();
}

async function names(s: Store): Promise<string[]> {
  return (await s.db.select({ name: items.name }).from(items).orderBy(asc(items.name))).map((r) => r.name);
}

/** The PostgreSQL error under Drizzle's wrapper (DrizzleQueryError keeps it as `cause`). */
function pgError(e: unknown): { code?: string; message: string } {
  assert.ok(e instanceof Error, `expected an Error, got ${String(e)}`);
  const inner = (e as Error & { cause?: unknown }).cause ?? e;
  assert.ok(inner instanceof Error, `expected an Error cause, got ${String(inner)}`);
  return inner as Error & { code?: string };
}

// Each test has its own store (in memory, or under its own mkdtemp directory), so they run side by side.
describe('PGlite on its worker thread, through Drizzle', { concurrency: 2 }, () => {
  for (const mode of modes) {
    const opts = { pgliteThread: mode.pgliteThread };

    test(`a transaction commits; one whose callback throws rolls back and rethrows the callback's own error (${mode.name})`, async () => {
      await withStore(opts, async (s) => {
        const out = await s.db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'kept' });
          // Inside, the transaction sees its own write.
          assert.deepEqual((await tx.select().from(items)).map((r) => r.name), ['kept']);
          return 'result';
        });
        assert.equal(out, 'result');
        assert.deepEqual(await names(s), ['kept']);

        class Mine extends Error { extra = 42; }
        const thrown = new Mine('callback failed');
        let caught: unknown;
        try {
          await s.db.transaction(async (tx) => {
            await tx.insert(items).values({ name: 'dropped' });
            await tx.update(items).set({ name: 'renamed' }).where(eq(items.name, 'kept'));
            throw thrown;
          });
        } catch (e) {
          caught = e;
        }
        assert.equal(caught, thrown, 'the caller gets the very object the callback threw');
        assert.ok(caught instanceof Mine);
        assert.equal((caught as Mine).message, 'callback failed');
        assert.equal((caught as Mine).extra, 42);
        assert.deepEqual(await names(s), ['kept'], 'the insert and the update were both rolled back');

        // Drizzle's explicit tx.rollback() rolls back too.
        await assert.rejects(s.db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'rolled-back' });
          tx.rollback();
        }), TransactionRollbackError);
        assert.deepEqual(await names(s), ['kept']);
      });
    });

    test(`a nested transaction (savepoint) that throws rolls back only its own part (${mode.name})`, async () => {
      await withStore(opts, async (s) => {
        const inner = new Error('inner failed');
        await s.db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'a' });
          await assert.rejects(tx.transaction(async (sp) => {
            await sp.insert(items).values({ name: 'b' });
            assert.deepEqual((await sp.select().from(items).orderBy(asc(items.name))).map((r) => r.name), ['a', 'b']);
            throw inner;
          }), (e) => e === inner);
          // Back in the outer transaction: b is gone, a is still there and more can be written.
          assert.deepEqual((await tx.select().from(items).orderBy(asc(items.name))).map((r) => r.name), ['a']);
          await tx.transaction(async (sp) => { await sp.insert(items).values({ name: 'c' }); });
          // A savepoint whose database statement fails rolls back alone as well.
          await assert.rejects(tx.transaction(async (sp) => {
            await sp.insert(items).values({ name: 'd' });
            await sp.insert(items).values({ name: 'a' }); // unique violation
          }), (e) => pgError(e).code === '23505');
          await tx.insert(items).values({ name: 'e' });
        });
        assert.deepEqual(await names(s), ['a', 'c', 'e']);
      });
    });

    test(`a query outside an open transaction waits for its end and sees the committed result (${mode.name})`, async () => {
      await withStore(opts, async (s) => {
        // Commit: the transaction writes a draft, then changes it before committing. PGlite is
        // one session, so a query that ran inside the open transaction would see 'draft' (or
        // nothing); one that waits sees only the committed 'final'.
        let outside!: Promise<string[]>;
        let outsideDone = false;
        await s.db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'draft' });
          outside = names(s).then((r) => { outsideDone = true; return r; });
          await afterwards(() => tx.select().from(items));
          assert.equal(outsideDone, false, 'the outside query must wait while the transaction is open');
          await tx.update(items).set({ name: 'final' }).where(eq(items.name, 'draft'));
          await afterwards(() => tx.select().from(items));
          assert.equal(outsideDone, false);
        });
        assert.deepEqual(await within(outside, 5000, 'outside query'), ['final']);

        // Rollback: the outside query sees nothing of what the transaction wrote.
        let outside2!: Promise<string[]>;
        let outside2Done = false;
        await assert.rejects(s.db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'never' });
          outside2 = names(s).then((r) => { outside2Done = true; return r; });
          await afterwards(() => tx.select().from(items));
          assert.equal(outside2Done, false, 'the outside query must wait while the transaction is open');
          throw new Error('abort');
        }), /abort/);
        assert.deepEqual(await within(outside2, 5000, 'outside query'), ['final']);

        // A second transaction begun while one is open waits for it too (no interleaving).
        const order: string[] = [];
        let second!: Promise<void>;
        await s.db.transaction(async (tx) => {
          order.push('first:begin');
          second = s.db.transaction(async (tx2) => {
            order.push('second:begin');
            await tx2.insert(items).values({ name: 'second' });
          });
          await afterwards(() => tx.select().from(items)); // a second one that did not wait would have begun meanwhile
          await tx.insert(items).values({ name: 'first' });
          order.push('first:end');
        });
        await within(second, 5000, 'second transaction');
        assert.deepEqual(order, ['first:begin', 'first:end', 'second:begin']);
        assert.deepEqual(await names(s), ['final', 'first', 'second']);
      });
    });

    test(`50 concurrent read-then-write transactions lose no update (${mode.name})`, async () => {
      await withStore(opts, async (s) => {
        await s.db.insert(counter).values({ id: 1, n: 0 });
        const N = 50;
        const seen = await Promise.all(Array.from({ length: N }, () => s.db.transaction(async (tx) => {
          const [row] = await tx.select().from(counter).where(eq(counter.id, 1));
          await turn(); // yield between the read and the write, as real code does
          await tx.update(counter).set({ n: row!.n + 1 }).where(eq(counter.id, 1));
          return row!.n;
        })));
        const [row] = await s.db.select().from(counter).where(eq(counter.id, 1));
        assert.equal(row!.n, N);
        // Each transaction read a distinct value: they ran one after another.
        assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: N }, (_, i) => i));
      });
    });

    test(`database errors reject with PostgreSQL's message and code, and the store keeps working (${mode.name})`, async () => {
      await withStore(opts, async (s) => {
        await s.db.insert(items).values({ name: 'x' });

        const dup = await s.db.insert(items).values({ name: 'x' }).then(() => null, (e: unknown) => e);
        assert.ok(dup, 'a duplicate insert must reject');
        const d = pgError(dup);
        assert.equal(d.code, '23505');
        assert.match(d.message, /duplicate key value violates unique constraint "items_name_key"/);
        assert.equal((d as { constraint?: string }).constraint, 'items_name_key');

        const syn = await s.db.execute(sql`selec 1`).then(() => null, (e: unknown) => e);
        assert.ok(syn, 'a syntax error must reject');
        const y = pgError(syn);
        assert.equal(y.code, '42601');
        assert.match(y.message, /syntax error at or near "selec"/);

        const missing = await s.db.execute(sql`select * from no_such_table`).then(() => null, (e: unknown) => e);
        assert.equal(pgError(missing).code, '42P01');

        // Inside a transaction: the error reaches the caller and the whole transaction rolls back.
        const inTx = await s.db.transaction(async (tx) => {
          await tx.insert(items).values({ name: 'y' });
          await tx.insert(items).values({ name: 'x' });
        }).then(() => null, (e: unknown) => e);
        assert.equal(pgError(inTx).code, '23505');

        // Still working: reads, writes and transactions.
        assert.deepEqual(await names(s), ['x']);
        await s.db.transaction(async (tx) => { await tx.insert(items).values({ name: 'z' }); });
        assert.deepEqual(await names(s), ['x', 'z']);
        assert.deepEqual(await rows(s, sql`select 1 as one`), [{ one: 1 }]);
      });
    });
  }

  test('bigint, jsonb, timestamptz, null and text[] round-trip the same through the worker as on the calling thread', async () => {
    const at = new Date('2024-02-29T23:59:59.123Z');
    const written = [
      {
        id: 1, big: 9223372036854775807n, bigNum: 9007199254740991, doc: { a: 1, nested: { list: [1, 'two', null, true] }, u: 'é✓ \\ \n', big: '12345678901234567890' },
        at, atText: '2024-02-29 23:59:59.123456+00', note: 'it\'s "quoted", with, commas', tags: ['a', 'b,c', 'd"e', '', 'NULL', 'ü'],
      },
      { id: 2, big: -9223372036854775808n, bigNum: -1, doc: [], at: new Date(0), atText: '1999-12-31 23:00:00+00', note: '', tags: [] },
      { id: 3, big: null, bigNum: null, doc: null, at: null, atText: null, note: null, tags: null },
    ];
    const run = async (pgliteThread: boolean) => withStore({ pgliteThread }, async (s) => {
      await s.db.execute(sql`create table vals (id int primary key, big int8, big_num int8, doc jsonb, at timestamptz, at_text timestamptz, note text, tags text[])`);
      await s.db.insert(vals).values(written);
      const typed = await s.db.select().from(vals).orderBy(asc(vals.id));
      const raw = await rows(s, sql`select * from vals order by id`);
      const literals = await rows(s, sql`select 9223372036854775807::int8 as i8, '{"k":[1,2.5,"x"]}'::jsonb as j, '2001-02-03 04:05:06.789+02'::timestamptz as ts,
        null::text as n, array['p','q',null]::text[] as arr, 1.5::numeric as num, '1 day 02:03:04'::interval as iv, '2020-01-02'::date as d`);
      return { typed, raw, literals };
    });
    const worker = await run(true);
    const local = await run(false);
    assert.deepEqual(worker, local);

    // And the values are the ones written, not merely equal between the two.
    const t = worker.typed;
    assert.equal(t[0]!.big, 9223372036854775807n);
    assert.equal(t[1]!.big, -9223372036854775808n);
    assert.equal(typeof t[0]!.big, 'bigint');
    assert.equal(t[0]!.bigNum, 9007199254740991);
    assert.deepEqual(t[0]!.doc, written[0]!.doc);
    assert.deepEqual(t[1]!.doc, []);
    assert.ok(t[0]!.at instanceof Date);
    assert.equal(t[0]!.at.getTime(), at.getTime());
    assert.equal(t[1]!.at!.getTime(), 0);
    assert.equal(typeof t[0]!.atText, 'string');
    assert.equal(new Date(t[0]!.atText!).getTime(), new Date('2024-02-29T23:59:59.123Z').getTime());
    assert.match(t[0]!.atText!, /\.123456/);
    assert.equal(t[0]!.note, written[0]!.note);
    assert.equal(t[1]!.note, '');
    assert.deepEqual(t[0]!.tags, written[0]!.tags);
    assert.deepEqual(t[1]!.tags, []);
    assert.deepEqual(t[2], { id: 3, big: null, bigNum: null, doc: null, at: null, atText: null, note: null, tags: null });
    const l = worker.literals[0] as Record<string, unknown>;
    assert.equal(l.i8, 9223372036854775807n);
    assert.deepEqual(l.j, { k: [1, 2.5, 'x'] });
    assert.equal(typeof l.ts, 'string', 'timestamptz stays text under Drizzle\'s parsers');
    assert.equal(new Date(l.ts as string).toISOString(), '2001-02-03T02:05:06.789Z');
    assert.equal(l.n, null);
    assert.deepEqual(l.arr, ['p', 'q', null]);
    assert.equal(l.iv, '1 day 02:03:04');
    assert.equal(l.d, '2020-01-02');
  });

  test('a store on disk keeps its data across close and reopen; a gzip dump loads into a new store with the same rows', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gantry-pglite-remote-'));
    try {
      const dataDir = join(dir, 'data');
      await withStore({ dataDir }, async (s) => {
        await migrateStore(s);
        await s.db.insert(items).values([{ name: 'one' }, { name: 'two' }]);
        await s.db.transaction(async (tx) => { await tx.insert(items).values({ name: 'three' }); });
      });
      let dump!: Blob;
      let migrations!: unknown[];
      await withStore({ dataDir }, async (s) => {
        assert.deepEqual(await names(s), ['one', 'three', 'two']);
        migrations = await rows(s, sql`select hash, created_at from drizzle.__drizzle_migrations order by id`);
        assert.ok(migrations.length > 0);
        // Writes after reopening persist too.
        await s.db.insert(items).values({ name: 'four' });
        dump = await s.pglite!.dumpDataDir('gzip');
        assert.ok(dump instanceof Blob);
        assert.ok(dump.size > 0);
        const head = new Uint8Array(await dump.slice(0, 2).arrayBuffer());
        assert.deepEqual([...head], [0x1f, 0x8b], 'a gzip stream');
      });
      await withStore({ loadDataDir: dump }, async (s) => {
        assert.deepEqual(await names(s), ['four', 'one', 'three', 'two']);
        assert.deepEqual(await rows(s, sql`select hash, created_at from drizzle.__drizzle_migrations order by id`), migrations);
        // The loaded copy is independent and writable.
        await s.db.insert(items).values({ name: 'five' });
      });
      await withStore({ dataDir }, async (s) => {
        assert.deepEqual(await names(s), ['four', 'one', 'three', 'two']);
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('after close(), queries and transactions reject with a clear error instead of hanging', async () => {
    const s = await openStore({ loadDataDir: await blankDump() });
    await s.db.execute(sql`create table items (id serial primary key, name text not null unique)`);
    await s.db.insert(items).values({ name: 'a' });
    // A query sent just before close is answered (or rejected), never left pending.
    const inFlight = names(s).then((r) => ({ ok: r }), (e: unknown) => ({ err: e }));
    await within(s.close(), 5000, 'close');
    const settled = await within(inFlight, 2000, 'query in flight at close');
    if ('ok' in settled) assert.deepEqual(settled.ok, ['a']);
    else assert.ok(settled.err instanceof Error);

    const q = await within(names(s).then(() => null, (e: unknown) => e), 2000, 'query after close');
    assert.ok(q instanceof Error, 'a query after close must reject');
    assert.match(pgError(q).message, /closed/);
    const t = await within(s.db.transaction(async () => {}).then(() => null, (e: unknown) => e), 2000, 'transaction after close');
    assert.ok(t instanceof Error, 'a transaction after close must reject');
    assert.match(pgError(t).message, /closed/);
    // Closing again is harmless.
    await within(s.close(), 2000, 'second close');
  });

  test('a database thread that dies is reported through store.failure (so serve can exit); close() is not a failure', async () => {
    const closed = await openStore({ loadDataDir: await blankDump() });
    let reported = false;
    void closed.failure!.then(() => { reported = true; });
    // the thread's 'exit' is where a failure is reported (the store's own handler runs first)
    const exited = once((closed.pglite as unknown as { worker: Worker }).worker, 'exit');
    await closed.close();
    await exited;
    assert.equal(reported, false, 'an orderly close is not a failure');

    const s = await openStore({ loadDataDir: await blankDump() });
    const worker = (s.pglite as unknown as { worker: { terminate(): Promise<number> } }).worker;
    await worker.terminate(); // as if the thread crashed (WebAssembly out of memory, a bug)
    const e = await within(s.failure!, 2000, 'failure');
    assert.match(e.message, /database thread exited/);
    const q = await within(names(s).then(() => null, (err: unknown) => err), 2000, 'query after the crash');
    assert.ok(q instanceof Error, 'queries reject instead of hanging');
  });
});
