// The simulator's tokenizer: the counting scan equals its regex definition on every string
// (lone surrogates and slice boundaries included), and long texts are counted with turns of
// the event loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { simChatPromptTokens, simChatPromptTokensAsync, simTokenCount, simTokenCounts, simTokens } from './tokenizer.ts';

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
