import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLog } from './rate-log.ts';

const list = (l: RateLog) => [...l.entries()].map((e) => [e.atMs, e.tokens]);

test('rate log: oldest first, evicted by time, a settlement replaces the estimate while the entry is in the window', () => {
  const l = new RateLog();
  l.add('a', 10, 100);
  l.add('b', 20, 200);
  l.add('c', 30, 300);
  assert.deepEqual([l.size, l.tokens, l.oldestAt()], [3, 600, 10]);
  l.settle('b', 50);
  assert.deepEqual(list(l), [[10, 100], [20, 50], [30, 300]]);
  assert.equal(l.tokens, 450);
  l.settle('b', 70); // settled once: a second settlement changes nothing
  assert.equal(l.tokens, 450);
  l.evict(20); // admitted at or before 20: gone
  assert.deepEqual(list(l), [[30, 300]]);
  assert.deepEqual([l.size, l.tokens, l.oldestAt()], [1, 300, 30]);
  l.settle('a', 1); // left the window before it was settled: nothing to correct
  assert.equal(l.tokens, 300);
  l.evict(30);
  assert.deepEqual([l.size, l.tokens, l.oldestAt()], [0, 0, undefined]);
  assert.equal((l as unknown as { at: Float64Array }).at.length, 0, 'an empty window holds no buffer');
  l.add('d', 40, 1); // and takes one again
  assert.deepEqual(list(l), [[40, 1]]);
});

test('rate log: grows past its buffer and wraps around in order; gives the room back when quiet; forgets ids never settled', () => {
  const l = new RateLog();
  let t = 0;
  // wrap around the buffer several times (it grows to 64 slots), then grow to hold 1,000 at once
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 50; i++) l.add(`r${round}-${i}`, ++t, 1);
    for (let i = 0; i < 50; i++) l.settle(`r${round}-${i}`, 2);
    l.evict(t - 10);
    assert.equal(l.size, 10);
    assert.equal(l.tokens, 20);
  }
  for (let i = 0; i < 1000; i++) l.add(`big-${i}`, ++t, i);
  assert.equal(l.size, 1010);
  assert.deepEqual(list(l).slice(8, 12), [[t - 1001, 2], [t - 1000, 2], [t - 999, 0], [t - 998, 1]]);
  l.settle('big-500', 7);
  assert.equal(list(l)[510]![1], 7);
  const expected = 20 + (999 * 1000) / 2 - 500 + 7;
  assert.equal(l.tokens, expected);
  // quiet again: the buffer shrinks, what stays is intact
  l.evict(t - 3);
  assert.deepEqual(list(l), [[t - 2, 997], [t - 1, 998], [t, 999]]);
  assert.ok((l as unknown as { at: Float64Array }).at.length < 1024, 'room given back');
  // the 1,000 were never settled (but one): their ids are forgotten once they leave the window
  assert.ok((l as unknown as { open: Map<string, number> }).open.size <= 3);
  l.settle('big-999', 1);
  assert.equal(l.tokens, 997 + 998 + 1);
});

test('rate log with keepIds: every entry keeps its id, in order, through growth and eviction (the Redis mirror puts entries back by id)', () => {
  const l = new RateLog({ keepIds: true });
  for (let i = 0; i < 100; i++) l.add(`req-${i}`, i, 10);
  l.settle('req-42', 3);
  l.evict(39);
  const e = [...l.entries()];
  assert.equal(e.length, 60);
  assert.deepEqual(e.slice(0, 3).map((x) => x.id), ['req-40', 'req-41', 'req-42']);
  assert.deepEqual([e[2]!.atMs, e[2]!.tokens], [42, 3]);
  assert.equal(e.at(-1)!.id, 'req-99');
  assert.equal(l.tokens, 59 * 10 + 3);
  // without keepIds nothing but the unsettled ids is kept
  const bare = new RateLog();
  bare.add('x', 1, 1);
  assert.equal([...bare.entries()][0]!.id, '');
});

test('rate log: requests of the same millisecond share a slot, yet count, settle and leave the window as the requests they are', () => {
  const l = new RateLog();
  for (let i = 0; i < 1000; i++) l.add(`same-${i}`, 5, 10);
  l.add('next', 6, 1);
  assert.deepEqual([l.size, l.tokens, l.oldestAt()], [1001, 10_001, 5]);
  assert.deepEqual(list(l), [[5, 10_000], [6, 1]]);
  assert.equal((l as unknown as { at: Float64Array }).at.length, 8, 'two slots hold 1,001 requests');
  l.settle('same-7', 3); // its estimate (10) is replaced within the shared slot
  assert.deepEqual(list(l), [[5, 9_993], [6, 1]]);
  assert.equal(l.tokens, 9_994);
  l.settle('same-7', 99); // settled once
  assert.equal(l.tokens, 9_994);
  l.evict(5); // the thousand leave together
  assert.deepEqual([l.size, l.tokens, l.oldestAt()], [1, 1, 6]);
  l.settle('same-8', 0); // left with its slot: nothing to correct
  assert.equal(l.tokens, 1);
  // with keepIds each request keeps a slot of its own: its id is what puts it back in Redis
  const k = new RateLog({ keepIds: true });
  k.add('a', 5, 1);
  k.add('b', 5, 2);
  assert.deepEqual([...k.entries()].map((e) => [e.id, e.atMs, e.tokens]), [['a', 5, 1], ['b', 5, 2]]);
  assert.equal(k.size, 2);
});
