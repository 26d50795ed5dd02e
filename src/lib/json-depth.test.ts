// The nesting limit's scan: exact at the limit, blind to brackets inside strings (escaped
// quotes and runs of backslashes included), and in agreement with the parsed value's depth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonTooDeep, MAX_JSON_DEPTH, valueTooDeep } from './json-depth.ts';

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number) => '{"a":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1);

test('the limit is 128 levels of arrays and objects, mixed or not; scalars add none', () => {
  assert.equal(MAX_JSON_DEPTH, 128);
  for (const deep of [arrays, objects, (n: number) => '[{"a":'.repeat(n / 2) + '1' + '}]'.repeat(n / 2)]) {
    assert.equal(jsonTooDeep(deep(128)), false);
    assert.equal(valueTooDeep(JSON.parse(deep(128))), false);
    assert.equal(jsonTooDeep(deep(130)), true);
    assert.equal(valueTooDeep(JSON.parse(deep(130))), true);
  }
  assert.equal(jsonTooDeep(arrays(129)), true);
  assert.equal(jsonTooDeep(`{"a": ${arrays(127)}, "b": ${arrays(127)}}`), false, 'siblings do not add up');
  assert.equal(jsonTooDeep(`{"a": ${arrays(127)}, "b": ${arrays(128)}}`), true);
  assert.equal(jsonTooDeep(arrays(3_500_000)), true);
  assert.equal(valueTooDeep('x'), false);
  assert.equal(valueTooDeep(null), false);
});

test('brackets inside strings do not count, whatever the escapes before a quote', () => {
  const inString = (s: string) => JSON.stringify({ text: s, pad: ' '.repeat(300) });
  assert.equal(jsonTooDeep(inString('['.repeat(1000))), false);
  assert.equal(jsonTooDeep(inString(`"${'['.repeat(1000)}`)), false, 'an escaped quote does not end the string');
  assert.equal(jsonTooDeep(inString(`\\${'['.repeat(1000)}`)), false);
  assert.equal(jsonTooDeep(inString(`\\\\"${'['.repeat(1000)}\\"`)), false);
  // an escaped backslash ends the string at the next quote: the brackets after it count
  assert.equal(jsonTooDeep(`["a\\\\", ${arrays(128)}]`), true);
  assert.equal(jsonTooDeep(`["a\\\\", ${arrays(127)}]`), false);
  assert.equal(jsonTooDeep(`["a\\"", ${arrays(128)}]`), true);
});

test('on any JSON value the scan and the parsed value agree', () => {
  const deepish = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.string({ unit: fc.constantFrom('[', '{', '"', '\\', ']', 'a', '}') }), fc.integer(), tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 3 }),
    object: fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 3 }),
  })).value;
  const seen = { deep: 0, shallow: 0 };
  fc.assert(fc.property(deepish, fc.integer({ min: 0, max: 6 }), (v, limit) => {
    const text = JSON.stringify(v);
    const deep = valueTooDeep(v, limit);
    seen[deep ? 'deep' : 'shallow']++;
    assert.equal(jsonTooDeep(text, limit), deep, text);
  }), { numRuns: 2000, seed: 42 });
  assert.ok(seen.deep > 200 && seen.shallow > 200, JSON.stringify(seen));
});
