// The token arithmetic: the simulator's counting scan equals its regex definition on every
// string (lone surrogates and slice boundaries included), long texts are counted with turns
// of the event loop, and the byte measures never build the JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { MAX_BYTES_PER_TOKEN, promptSize, simChatPromptTokens, simChatPromptTokensAsync, simTokenCount, simTokenCounts, simTokens, tokensAtLeast } from './tokens.ts';
import { jsonBytes } from '../lib/json-encode.ts';

const PIECES = ['a', 'Zz', '_', '9', ' ', '\n', '\t', '.', ',', 'é', '世界', '😀', '\ud800', '\udc00', '𝐀', '\u00a0', '\u2028', '-', '\ufeff', '\u0301', '٣', 'ǅ', '\u3000', '"', '\\'];

function randomText(len: number, rnd: () => number): string {
  let s = '';
  while (s.length < len) s += PIECES[Math.floor(rnd() * PIECES.length)]!;
  return s;
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return a / 4294967296;
  };
}

test('the counting scan equals the tokenizer\'s regex on any text', () => {
  const rnd = seeded(7);
  for (let i = 0; i < 5000; i++) {
    const s = randomText(Math.floor(rnd() * 40), rnd);
    assert.equal(simTokenCount(s), simTokens(s).length, JSON.stringify(s));
  }
  assert.equal(simTokenCount(''), 0);
  assert.equal(simTokenCount('river stone'), 2);
  assert.equal(simTokenCount('Hello, world!'), 4);
});

test('long texts are counted in slices with turns of the event loop, and the count is the same', async () => {
  // Slice boundaries fall inside words and surrogate pairs somewhere in these.
  const rnd = seeded(11);
  const texts = [randomText(300_000, rnd), 'word'.repeat(100_000), '😀'.repeat(150_001), ' '.repeat(200_000) + 'x', randomText(10, rnd)];
  let turns = 0;
  let counting = true;
  const ticker = (async () => {
    while (counting) {
      await turn();
      turns++;
    }
  })();
  const counts = await simTokenCounts(texts);
  counting = false;
  await ticker;
  assert.deepEqual(counts, texts.map((t) => simTokens(t).length));
  assert.ok(turns >= 5, `the loop turned ${turns} times while about 1.7 M characters were counted`);
  const msgs = [{ role: 'system', content: texts[0] }, { role: 'user', content: [{ type: 'text', text: 'hi there' }], name: 'bob' }];
  assert.equal(await simChatPromptTokensAsync(msgs), simChatPromptTokens(msgs));
});

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
