// encodeJson gives exactly the bytes of JSON.stringify, for small values at once and for big
// ones in slices (surrogate pairs and escapes across slice boundaries), turning the loop meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { encodeJson } from './json-encode.ts';

test('encodeJson equals JSON.stringify, small and big', async () => {
  const small = { model: 'm', messages: [{ role: 'user', content: 'hi "there"\n' }], skip: undefined, n: [1, null, 2.5], f: false };
  assert.ok((await encodeJson(small)).equals(Buffer.from(JSON.stringify(small))));
  // Over 1 MB: written in slices of 256 K characters. Put a surrogate pair, a lone surrogate,
  // quotes, backslashes and control characters around each boundary.
  const unit = 'ab😀"\\\n\u0001\u2028\ud800x é 世';
  const big = unit.repeat(Math.ceil((1 << 20) / unit.length) + 7) + '😀';
  const body = {
    model: 'x', stream: true, stream_options: { include_usage: true }, dropped: undefined,
    messages: [{ role: 'system', content: big }, { role: 'user', content: [{ type: 'text', text: big.slice(1) }] }],
    many: Array.from({ length: 20_000 }, (_, i) => ({ i, s: `v${i}`, u: undefined })),
    ids: [[1, 2, 3], []],
  };
  let turns = 0;
  let encoding = true;
  const ticker = (async () => {
    while (encoding) {
      await turn();
      turns++;
    }
  })();
  const out = await encodeJson(body);
  encoding = false;
  await ticker;
  assert.ok(out.equals(Buffer.from(JSON.stringify(body))), 'same bytes as JSON.stringify');
  assert.ok(turns >= 4, `the loop turned ${turns} times`);
});
