// OpenAI's encodings counted by openai-encodings.ts give the `gpt-tokenizer` package's counts
// (special-token strings as text) on prose, code and every script, on runs of one character up
// to the bound of bounded-pattern.ts, on lone surrogates; past the bound a run is counted in
// pieces (a few tokens apart).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import r50k from 'gpt-tokenizer/encoding/r50k_base';
import { openaiEncoding, type EncodingName } from './openai-encodings.ts';
import { MAX_REPEAT } from './bounded-pattern.ts';

const AS_TEXT = { disallowedSpecial: new Set<string>() };
const own = async (name: EncodingName) => {
  const enc = await openaiEncoding(name);
  return (text: string) => {
    let n = 0;
    for (const m of text.matchAll(enc.pattern)) n += enc.count(m[0]);
    return n;
  };
};

const TEXTS = [
  readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8'),
  readFileSync(new URL('../gateway/gateway.ts', import.meta.url), 'utf8'),
  'Héllo wörld — 漢字かな交じり文、한국어 텍스트, Ελληνικά, русский текст, עברית, العربية, हिन्दी, ไทย 🎉👩‍👩‍👧‍👦 e\u0301 <|endoftext|> <|im_start|>user\n\t\t  x\r\n\n',
  'a\uD800b\uDC00c \uD83D', // lone surrogates
  `${'7'.repeat(200)} ${' '.repeat(MAX_REPEAT - 1)}x ${'a'.repeat(MAX_REPEAT)} ${'!'.repeat(MAX_REPEAT)} ${'漢'.repeat(MAX_REPEAT)}`,
];

test('the encodings count as the package does, up to the bound of a run', async () => {
  for (const [name, pkg] of [['cl100k_base', cl100k], ['o200k_base', o200k], ['r50k_base', r50k]] as const) {
    const count = await own(name);
    for (const text of TEXTS) assert.equal(count(text), pkg.countTokens(text, AS_TEXT), `${name}: ${text.slice(0, 30)}`);
  }
});

test('past the bound a run is counted in pieces, a few tokens from whole', async () => {
  const count = await own('cl100k_base');
  for (const run of ['a'.repeat(4 * MAX_REPEAT), ' '.repeat(4 * MAX_REPEAT), '漢'.repeat(4 * MAX_REPEAT)]) {
    const whole = cl100k.countTokens(run, AS_TEXT);
    assert.ok(Math.abs(count(run) - whole) <= 4, `${run[0]}: ${count(run)} vs ${whole}`);
  }
});
