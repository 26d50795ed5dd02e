// A tokenizer.json is counted as its model counts: OpenAI's cl100k_base written as a
// byte-level BPE tokenizer.json (the layout of Llama 3's and Qwen's: byte-level-bpe.ts; and in
// a layout left to the library) gives the encoding's own counts, whole and for long texts
// counted in pieces (the library at most LIBRARY_TOTAL characters of one); counting stops past
// the caller's limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { cl100kTokenizerJson } from '../../test/helpers/tokenizer-json.ts';
import { LIBRARY_TOTAL, tokenizerFor } from './tokenizers.ts';

const TEXTS = [
  'Hello, world! The quick brown fox jumps over the lazy dog.',
  "I'm here; you'll see 12345 numbers, 3.14159 and ünïcödé 漢字 😀 emoji",
  'def f(x):\n    return x * 2\n\n\nclass A:\n  pass',
  'a  b   c    d\ttabs\r\nand CRLF',
];

/** ~200 KB of prose and code lines: longer than one slice, so it is counted in pieces. */
function longText(): string {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < 200_000; i++) lines.push(`Line ${i}: ${TEXTS[i % TEXTS.length]!.replace(/\n/g, ' ')} — item ${i * 7919 % 1000}.`);
  return lines.join('\n');
}

test('a byte-level BPE tokenizer.json counts as the encoding it was made from; OpenAI encodings by name', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-tokjson-'));
  try {
    const file = join(dir, 'tokenizer.json');
    writeFileSync(file, JSON.stringify(cl100kTokenizerJson()));
    // The same tokenizer in a layout byte-level-bpe.ts leaves to the library (a normalizer Sequence).
    const libraryFile = join(dir, 'library.json');
    writeFileSync(libraryFile, JSON.stringify({ ...cl100kTokenizerJson(), normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }] } }));
    const [fromFile, fromLibrary, byName] = await Promise.all([tokenizerFor(file), tokenizerFor(libraryFile), tokenizerFor('cl100k_base')]);
    assert.equal(await tokenizerFor(file), fromFile, 'loaded once per process');
    const long = longText();
    const libraryLong = long.slice(0, LIBRARY_TOTAL);
    for (const text of [...TEXTS, long, libraryLong]) {
      const want = countTokens(text, { disallowedSpecial: new Set() });
      for (const tok of [fromFile, byName, ...(text.length <= LIBRARY_TOTAL ? [fromLibrary] : [])]) assert.deepEqual(await tok.count(text, 1e9), { tokens: want, complete: true }, text.slice(0, 40));
    }
    // The library counts at most LIBRARY_TOTAL characters of a text: the rest is left, the count a lower bound.
    const head = await fromLibrary.count(long, 1e9);
    assert.equal(head.complete, false);
    assert.ok(head.tokens > 0 && head.tokens < countTokens(long), String(head.tokens));
    // A special token the file declares is one token, as the servers that load it count it.
    assert.equal((await fromFile.count('<|endoftext|>hi', 1e9)).tokens, 2);
    assert.equal((await fromLibrary.count('<|endoftext|>hi', 1e9)).tokens, 2);
    // Past the limit a long text is left uncounted: a lower bound above the limit.
    for (const tok of [fromFile, fromLibrary, byName]) {
      const c = await tok.count(long, 1000);
      assert.equal(c.complete, false);
      assert.ok(c.tokens > 1000 && c.tokens < countTokens(long), String(c.tokens));
    }
    // A long text gives the event loop turns while it is counted (an 8 MB prompt must not stall the process).
    for (const tok of [fromFile, fromLibrary, byName]) {
      const order: string[] = [];
      setImmediate(() => order.push('the loop turned'));
      await tok.count(long, 1e9);
      order.push('counted');
      assert.deepEqual(order, ['the loop turned', 'counted']);
    }
    // A special token's text in a prompt is text to an encoding (OpenAI's API counts it so), never an error.
    const special = '<|endoftext|> is text here';
    assert.equal((await byName.count(special, 1e9)).tokens, countTokens(special, { disallowedSpecial: new Set() }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
