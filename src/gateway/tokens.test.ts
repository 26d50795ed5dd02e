// The gateway's token arithmetic: the byte measures never build the JSON, and the lower bound
// stays below the simulator's count of ordinary text (the tokenizer itself:
// sim/tokenizer.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_BYTES_PER_TOKEN, promptSize, simTokenCount, tokensAtLeast } from './tokens.ts';
import { jsonBytes } from '../lib/json-encode.ts';

test('byte measures: jsonBytes is the JSON\'s length without building it; the lower bound is ⌈bytes / 128⌉', () => {
  const values: unknown[] = [
    { model: 'm', messages: [{ role: 'user', content: 'héllo 世界 😀' }], max_tokens: 5, stream: false, x: null, n: 1.5 },
    ['a', 1, [2, 3], {}, []], 'plain', 42, true, null, { skipped: undefined, kept: 'k' },
  ];
  for (const v of values) assert.equal(jsonBytes(v), Buffer.byteLength(JSON.stringify(v)), JSON.stringify(v));
  // escapes are not counted: never more than the JSON
  assert.ok(jsonBytes({ s: 'a"b\\c\n' }) <= Buffer.byteLength(JSON.stringify({ s: 'a"b\\c\n' })));
  assert.deepEqual(promptSize('abcd'), { bound: 12, estimate: 2 });
  assert.equal(MAX_BYTES_PER_TOKEN, 128);
  assert.equal(tokensAtLeast(0), 0);
  assert.equal(tokensAtLeast(128), 1);
  assert.equal(tokensAtLeast(129), 2);
  // the lower bound never exceeds the simulator's count of ordinary text (which has far more than one token per 128 bytes)
  const text = 'light river stone garden window '.repeat(1000);
  assert.ok(tokensAtLeast(Buffer.byteLength(text)) < simTokenCount(text));
});
