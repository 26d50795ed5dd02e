// The store's handle as every query takes it: the database, a transaction, or either. Apart
// from db.ts (which opens one) so that the database thread (pglite-worker.ts), which db.ts
// starts, can name the type without importing its starter. Queries name their tables
// (store/<area>.ts imports its schema file): the handle carries no schema, so a new table is
// known to no list.
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;
