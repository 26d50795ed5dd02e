// The one channel for domain changes. Domain operations publish a typed change after their
// transaction commits (never before, never on rollback); caches and the gateway subscribe.
// Nothing else invalidates a cache. Across replicas (PostgreSQL) changes travel by
// LISTEN/NOTIFY (adapters/changes-pg.ts); the caches' short TTLs stay only as a fallback for a
// notification lost while a replica was disconnected, and a reconnect clears them at once.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BudgetScope, ScopeDelta } from './spend/scopes.ts';
import type { Db, Tx } from '../store/db.ts';

export type Change =
  /** a key was created, revoked or changed */
  | { type: 'key.changed'; teamId: string; keyId: string }
  /** a member registered or removed an SSH public key (the SSH endpoint's sessions by it close) */
  | { type: 'sshkey.changed'; teamId: string; memberId: string; sshKeyId: string }
  /** a member's role or status changed (their keys carry it) */
  | { type: 'member.changed'; teamId: string; memberId: string }
  /** suspended or resumed, tier, credit limit, enabled models, quota overrides */
  | { type: 'team.changed'; teamId: string }
  | { type: 'policy.changed'; keyId: string }
  /** a member's model-access policy, which binds every key of the member, was set or removed */
  | { type: 'member.policy.changed'; teamId: string; memberId: string }
  /** which of an endpoint's workers take traffic changed (the serverless router re-reads them) */
  | { type: 'endpoint.workers.changed'; teamId: string; endpointId: string }
  /** a member or key budget was set, changed or removed */
  | { type: 'budget.changed'; scope: BudgetScope }
  /** models or their quota definitions */
  | { type: 'catalogue.changed' }
  /**
   * Money moved outside a reservation (operator charges, top-ups, GPU metering, holds): the
   * shared counters take the deltas once, on the replica that moved it (LOCAL).
   */
  | { type: 'money.moved'; deltas: ScopeDelta[] }
  /**
   * A serverless endpoint was created, updated (`previousAppName` when its appName changed)
   * or asked to terminate: its URL's routing and its reconciliation may have changed.
   */
  | { type: 'endpoint.changed'; teamId: string; endpointId: string; appName: string; previousAppName?: string }
  /**
   * an instance was created, or its status, ports or the endpoints its ports answer at changed
   * (the ports proxy's routing cache, gateway/ports, reads it again)
   */
  | { type: 'instance.changed'; teamId: string; instanceId: string }
  /** lines were added to an instance's log (its followers read them at once) */
  | { type: 'instance.log'; teamId: string; instanceId: string };

export type ChangeType = Change['type'];
export type ChangeOf<T extends ChangeType> = Extract<Change, { type: T }>;

/** Changes that only the publishing process acts on (they update shared state once). */
const LOCAL: ReadonlySet<ChangeType> = new Set(['money.moved']);

/** Carries changes to the other replicas and back. */
export interface ChangeTransport {
  /** Fire and forget: a lost notification is covered by the caches' TTL. */
  send(change: Change): void;
  /**
   * Start receiving. `resync` is called when notifications may have been missed (a
   * reconnect): subscribers drop whatever they cached.
   */
  start(deliver: (change: Change) => void, resync: () => void): Promise<void>;
  close(): Promise<void>;
}

type Handler = (change: Change) => void;

const pendingInTx = new AsyncLocalStorage<Change[]>();

export class ChangeBus {
  private readonly handlers = new Map<ChangeType, Set<Handler>>();
  private readonly resyncs = new Set<() => void>();
  private transport: ChangeTransport | undefined;
  private readonly onError: (err: unknown, change: Change | undefined) => void;
  /** Changes that arrived from other replicas, by type, and resyncs (for /metrics, and tests that wait for them). */
  readonly received = new Map<ChangeType | 'resync', number>();

  constructor(opts: { onError?: (err: unknown, change: Change | undefined) => void } = {}) {
    this.onError = opts.onError ?? (() => {});
  }

  /** Connect to other replicas (PostgreSQL); without it changes stay in this process. */
  async connect(transport: ChangeTransport): Promise<void> {
    this.transport = transport;
    await transport.start((c) => {
      this.received.set(c.type, (this.received.get(c.type) ?? 0) + 1);
      this.deliver(c);
    }, () => {
      this.received.set('resync', (this.received.get('resync') ?? 0) + 1);
      this.resync();
    });
  }

  /**
   * Announce a change. Inside a transaction opened with `inTransaction`, it waits for the
   * commit (and is dropped on rollback); otherwise it is delivered now.
   */
  publish(change: Change): void {
    const pending = pendingInTx.getStore();
    if (pending) {
      pending.push(change);
      return;
    }
    this.deliver(change);
    if (this.transport && !LOCAL.has(change.type)) this.transport.send(change);
  }

  subscribe<T extends ChangeType>(type: T, fn: (change: ChangeOf<T>) => void): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    const h = fn as Handler;
    set.add(h);
    return () => set.delete(h);
  }

  /** Called when changes of other replicas may have been missed: drop every cached value. */
  onResync(fn: () => void): () => void {
    this.resyncs.add(fn);
    return () => this.resyncs.delete(fn);
  }

  /** Resolves with the next change of `type` that matches (tests wait for events, not time). */
  next<T extends ChangeType>(type: T, match: (change: ChangeOf<T>) => boolean = () => true): Promise<ChangeOf<T>> {
    return new Promise((resolve) => {
      const off = this.subscribe(type, (c) => {
        if (!match(c)) return;
        off();
        resolve(c);
      });
    });
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  private deliver(change: Change): void {
    for (const fn of this.handlers.get(change.type) ?? []) {
      try {
        fn(change);
      } catch (err) {
        this.onError(err, change);
      }
    }
  }

  private resync(): void {
    for (const fn of this.resyncs) {
      try {
        fn();
      } catch (err) {
        this.onError(err, undefined);
      }
    }
  }
}

/**
 * Run `fn` in a transaction whose published changes, however deep they happen, are
 * delivered once it has committed. A transaction opened inside another joins the outer one.
 */
export async function inTransaction<T>(ctx: { db: Db; changes: ChangeBus }, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (pendingInTx.getStore()) return ctx.db.transaction(fn);
  const collected: Change[] = [];
  const result = await pendingInTx.run(collected, () => ctx.db.transaction(fn));
  for (const c of collected) ctx.changes.publish(c); // outside the run: delivered now
  return result;
}

/**
 * Announce a change of the transaction under way, delivered after it commits. For code that
 * runs inside a transaction but has no context at hand (ledger postings); outside one it is
 * a programming error, since the change could be seen before the data.
 */
export function deferChange(change: Change): void {
  const pending = pendingInTx.getStore();
  if (!pending) throw new Error(`${change.type} published outside inTransaction`);
  pending.push(change);
}
