// Single-use nonces (domain/single-use.ts): taken once across replicas that share a record
// (here a Map standing for Redis; the real one: gateway/ports/ports-replicas.services.test.ts),
// once per replica while the shared record fails or is not configured, and a replica refuses
// what it took itself even after the shared record lost it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SingleUse, type SharedNonces } from './single-use.ts';

function sharedRecord(): SharedNonces & { down: boolean; forget(): void } {
  const taken = new Map<string, number>();
  return {
    down: false,
    async take(nonce, expiresAtMs, nowMs) {
      if (this.down) throw new Error('redis: connection refused');
      const until = taken.get(nonce);
      if (until !== undefined && until > nowMs) return false;
      taken.set(nonce, expiresAtMs);
      return true;
    },
    forget: () => taken.clear(),
    close: async () => {},
  };
}

test('a nonce is taken once across replicas sharing a record, per replica while it fails, and never twice on one replica', async () => {
  const shared = sharedRecord();
  const errors: unknown[] = [];
  const [a, b] = [new SingleUse({ shared, onError: (e) => errors.push(e) }), new SingleUse({ shared, onError: (e) => errors.push(e) })];
  assert.equal(await a.take('n1', 1000, 0), true);
  assert.equal(await b.take('n1', 1000, 1), false, 'another replica: taken already');
  assert.equal(await a.take('n1', 1000, 2), false, 'the same replica: taken already');
  shared.forget(); // Redis lost its data
  assert.equal(await a.take('n1', 1000, 3), false, 'a replica remembers what it took');
  shared.down = true;
  assert.equal(await b.take('n2', 1000, 4), true, 'Redis away: taken on this replica alone');
  assert.equal(await b.take('n2', 1000, 5), false);
  assert.equal(errors.length, 1, 'the failure is told');
  assert.equal(await a.take('n3', 10, 6), true);
  assert.equal(await a.take('n3', 10, 11), true, 'an expired nonce is forgotten (its token is refused as expired before)');
  const alone = new SingleUse();
  assert.equal(await alone.take('n', 10, 0), true);
  assert.equal(await alone.take('n', 10, 1), false, 'without a shared record: once per replica');
});
