// Embedded test stores kept warm in the process: a store a test closes is not shut down but
// put back to what the template holds (every table's rows and every sequence as the
// template has them) and handed to the next test that asks, on the same database thread.
// Starting a database thread and PGlite from the template costs ~1.7 s of CPU; putting one
// back ~0.1 s (bench/README.md, "Tests in tiers"). In the fast tier's shared workers
// (test/runner), files run one after another in a process: a worker of ~80 files starts a
// handful of databases instead of ~60.
//
// A store is reused only when it is as the template left it but for its rows: its database
// thread alive, and the same tables, columns, functions and triggers (a test that made a
// trigger of its own gets a fresh store next time). What a closed store's holder may still
// do (a timer of an app closed too early) is refused: each lease is its own client, closed
// for good when given back, so nothing reaches the next test's data.
import { USAGE_PROCEDURES } from '../../src/domain/usage/procedures.ts';
import { startEmbedded } from '../../src/store/embedded-start.ts';
import type { RemotePGlite, RemoteTx } from '../../src/store/pglite-remote.ts';

/** idle stores kept at most; more at once are closed when given back (each holds ~150 MB) */
const MAX_IDLE = 2;
/** a database thread is started anew after this many tests (PGlite's memory never shrinks) */
const MAX_LEASES = 25;

interface Warm {
  remote: RemotePGlite;
  leases: number;
  dead: boolean;
}

const idle: Promise<Warm | undefined>[] = [];
let template: Promise<{ reset: string; shape: string }> | undefined;

const SHAPE = `select md5(coalesce((select string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, ordinal_position)
    from information_schema.columns where table_schema = 'public'), '')
  || (select count(*) from pg_class where relnamespace = 'public'::regnamespace)
  || '/' || (select count(*) from pg_proc where pronamespace = 'public'::regnamespace)
  || '/' || (select count(*) from pg_trigger where not tgisinternal)) as shape`;

async function rows<T>(remote: RemotePGlite, sql: string): Promise<T[]> {
  return (await remote.query<T>(sql)).rows;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The script that puts a store back to the template: read once, from a store fresh from it. */
async function readTemplate(remote: RemotePGlite): Promise<{ reset: string; shape: string }> {
  const tables = (await rows<{ t: string }>(remote, `select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`)).map((r) => r.t);
  const script = ['set session_replication_role = replica', `truncate table ${tables.map(ident).join(', ')} restart identity cascade`];
  for (const t of tables) {
    const [r] = await rows<{ data: string | null }>(remote, `select json_agg(x)::text as data from public.${ident(t)} x`);
    if (!r?.data) continue;
    const tag = '$gantry_template$';
    if (r.data.includes(tag)) throw new Error(`the template's ${t} holds ${tag}`);
    script.push(`insert into public.${ident(t)} overriding system value select * from json_populate_recordset(null::public.${ident(t)}, ${tag}${r.data}${tag})`);
  }
  for (const s of await rows<{ name: string; last: string | null }>(remote, `select sequencename as name, last_value::text as last from pg_sequences where schemaname = 'public'`)) {
    if (s.last !== null) script.push(`select setval('public.${ident(s.name)}', ${BigInt(s.last)}, true)`);
  }
  script.push('set session_replication_role = default');
  const [shape] = await rows<{ shape: string }>(remote, SHAPE);
  return { reset: `${script.join(';\n')};`, shape: shape!.shape };
}

async function startWarm(dump: Blob): Promise<Warm> {
  const { remote } = startEmbedded({ loadDataDir: dump, procedures: [USAGE_PROCEDURES] });
  await remote.waitReady;
  const warm: Warm = { remote, leases: 0, dead: false };
  void remote.failure.then(() => { warm.dead = true; });
  template ??= readTemplate(remote);
  await template;
  return warm;
}

/** Puts a store back to the template, or shuts it down (undefined) when it cannot be reused. */
async function putBack(warm: Warm): Promise<Warm | undefined> {
  try {
    if (warm.dead || warm.leases >= MAX_LEASES) throw new Error('not reused');
    await warm.remote.exec('discard all'); // a session's settings, prepared statements, advisory locks, temporary tables
    const { reset, shape } = await template!;
    const [now] = await rows<{ shape: string }>(warm.remote, SHAPE);
    if (now?.shape !== shape) throw new Error('its schema changed');
    await warm.remote.exec(reset);
    warm.remote.keepProcessAlive(false); // an idle store never holds the process open: it ends when its tests have
    return warm;
  } catch {
    await warm.remote.close().catch(() => {});
    return undefined;
  }
}

/** A client of a warm store for one test, refusing everything once given back. */
class Lease {
  readonly waitReady = Promise.resolve();
  readonly failure: Promise<Error>;
  private closed = false;
  private readonly warm: Warm;

  constructor(warm: Warm) {
    this.warm = warm;
    this.failure = warm.remote.failure;
  }

  private live(): RemotePGlite {
    if (this.closed) throw new Error('the database is closed');
    return this.warm.remote;
  }

  query<T>(sql: string, params?: unknown[], opts?: Parameters<RemotePGlite['query']>[2]) {
    return this.live().query<T>(sql, params, opts);
  }

  exec(sql: string) {
    return this.live().exec(sql);
  }

  transaction<T>(fn: (tx: RemoteTx) => Promise<T>): Promise<T> {
    return this.live().transaction(fn);
  }

  procedure<T>(name: string, args: unknown): Promise<T> {
    return this.live().procedure<T>(name, args);
  }

  dumpDataDir(compression?: 'gzip' | 'none' | 'auto') {
    return this.live().dumpDataDir(compression);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const back = putBack(this.warm);
    if (idle.length < MAX_IDLE) idle.push(back);
    else await (await back)?.remote.close();
  }
}

/** A warm store's client, for openStore({ started }): a copy of the template's data. */
export async function leaseTemplateStore(dump: () => Promise<Blob>): Promise<RemotePGlite> {
  let warm: Warm | undefined;
  while (!warm && idle.length) warm = await idle.shift();
  warm ??= await startWarm(await dump());
  warm.leases++;
  warm.remote.keepProcessAlive(true);
  // quacks like the thread's client (what openStore and Drizzle call on it); RemotePGlite's private fields make it nominal
  return new Lease(warm) as unknown as RemotePGlite;
}
