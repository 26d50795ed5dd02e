// Replicas on one embedded store, in one process: a change transport (domain/changes.ts) that
// carries each app's changes to the others, as PostgreSQL's LISTEN/NOTIFY does between
// replicas (adapters/changes-pg.ts): after the publisher's own subscribers, asynchronously,
// as JSON. On PostgreSQL the apps have the real transport already: `linkReplicas` leaves them.
import type { Change, ChangeBus, ChangeTransport } from '../../src/domain/changes.ts';
import type { Store } from '../../src/store/db.ts';

export class ChangeHub {
  private readonly ends = new Set<(change: Change) => void>();

  transport(): ChangeTransport {
    let deliver: ((change: Change) => void) | undefined;
    const receive = (change: Change) => deliver?.(change);
    return {
      send: (change) => {
        const wire = JSON.stringify(change);
        for (const end of this.ends) if (end !== receive) setImmediate(() => end(JSON.parse(wire) as Change));
      },
      start: async (d) => {
        deliver = d;
        this.ends.add(receive);
      },
      close: async () => {
        this.ends.delete(receive);
      },
    };
  }
}

/** Connects the apps' change channels to each other when their store is PGlite (on PostgreSQL they share one already). */
export async function linkReplicas(store: Store, buses: ChangeBus[]): Promise<void> {
  if (store.kind === 'postgres') return;
  const hub = new ChangeHub();
  for (const bus of buses) await bus.connect(hub.transport());
}
