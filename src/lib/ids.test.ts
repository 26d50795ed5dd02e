import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derivedId, ID_PREFIX, newDnsId, newId } from './ids.ts';

test('ids: prefix, 10 characters of time, 12 random; sortable by time; no two alike', () => {
  const seen = new Set<string>();
  let prev = '';
  for (let i = 0; i < 5000; i++) {
    const id = newId('request', 1764115200000 + i);
    assert.match(id, /^req_[0-9a-hjkmnp-tv-z]{22}$/);
    assert.equal(id.slice(0, 14), `req_${id.slice(4, 14)}`);
    assert.ok(id.slice(0, 14) > prev.slice(0, 14) || i === 0, 'a later time sorts later');
    prev = id;
    seen.add(id);
  }
  assert.equal(seen.size, 5000);
  assert.equal(newId('request', 1764115200000).slice(0, 14), 'req_01kayqbe00', 'the time part as earlier versions wrote it');
  for (const kind of Object.keys(ID_PREFIX) as (keyof typeof ID_PREFIX)[]) assert.ok(newId(kind).startsWith(`${ID_PREFIX[kind]}_`));
});

test('ids: DNS-label ids and derived ids keep their shapes; a derived id is the same for the same inputs, as before', () => {
  assert.match(newDnsId('endpoint', 0), /^ep-0000000000[0-9a-hjkmnp-tv-z]{12}$/);
  assert.match(newDnsId('worker'), /^wk-[0-9a-z]{22}$/);
  // a statement's id is computed, never stored: it must not change between versions
  assert.equal(derivedId('statement', 1764115200000, 'usr_x:2025-11'), 'stm_01kayqbe00gf52nbqg72ad');
  assert.equal(derivedId('statement', 1764115200000, 'usr_x:2025-11'), derivedId('statement', 1764115200000, 'usr_x:2025-11'));
  assert.notEqual(derivedId('statement', 1764115200000, 'usr_y:2025-11'), derivedId('statement', 1764115200000, 'usr_x:2025-11'));
});
