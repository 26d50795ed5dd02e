// The shared JSON parsing thread: a body that kills it fails alone, the bodies waiting behind
// it are parsed by a new one, however many such bodies come; the real worker refuses a body
// nested past the limit before parsing it, and keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OffThreadJson, type ParseOutcome } from './json-off-thread.ts';

/** A body as json-body.ts hands it over: one block owning its memory. */
const blocks = (text: string) => {
  const b = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  b.write(text);
  return [b];
};
const CRASHING = new URL('../../test/helpers/crashing-json-worker.ts', import.meta.url);

test('a body that kills the worker fails alone: the others, before and after it, are parsed', async () => {
  for (const crash of ['exit', 'throw']) {
    const crashes: Error[] = [];
    const parser = new OffThreadJson({ script: CRASHING, onCrash: (e) => crashes.push(e) });
    try {
      // valid bodies of another team around two poison ones, all sent at once
      const bodies = Array.from({ length: 8 }, (_, i) => (i === 2 || i === 5 ? { crash } : { team: 'other', i }));
      const outcomes = await Promise.all(bodies.map((b) => parser.parse(blocks(JSON.stringify(b)))));
      outcomes.forEach((o, i) => {
        if (i === 2 || i === 5) assert.deepEqual(o, { failed: true }, `${crash}: body ${i}`);
        else assert.deepEqual(o, { value: { team: 'other', i } }, `${crash}: body ${i}`);
      });
      assert.equal(crashes.length, 2, `${crash}: one worker per poison body`);
      // and the parser still serves
      assert.deepEqual(await parser.parse(blocks('[1]')), { value: [1] });
    } finally {
      await parser.close();
    }
  }
});

test('a stream of poison bodies never fails a valid one', async () => {
  const parser = new OffThreadJson({ script: CRASHING });
  try {
    const sent: Promise<ParseOutcome>[] = [];
    for (let i = 0; i < 20; i++) sent.push(parser.parse(blocks(JSON.stringify(i % 2 ? { crash: 'exit' } : { ok: i }))));
    const outcomes = await Promise.all(sent);
    assert.deepEqual(outcomes.filter((_, i) => i % 2 === 0), Array.from({ length: 10 }, (_, i) => ({ value: { ok: 2 * i } })));
    assert.ok(outcomes.filter((_, i) => i % 2 === 1).every((o) => 'failed' in o));
  } finally {
    await parser.close();
  }
});

test('the real worker refuses a body nested past the limit before parsing it, and goes on', async () => {
  const crashes: Error[] = [];
  const parser = new OffThreadJson({ onCrash: (e) => crashes.push(e) });
  try {
    const deep = parser.parse(blocks('['.repeat(3_500_000) + ']'.repeat(3_500_000)));
    const valid = parser.parse(blocks(JSON.stringify({ messages: [{ content: 'x'.repeat(2_000_000) }] })));
    assert.deepEqual(await deep, { tooDeep: true });
    assert.equal(((await valid) as { value: { messages: { content: string }[] } }).value.messages[0]!.content.length, 2_000_000);
    assert.deepEqual(await parser.parse(blocks(`${'['.repeat(128)}${']'.repeat(128)}`)), { value: JSON.parse(`${'['.repeat(128)}${']'.repeat(128)}`) });
    assert.deepEqual(crashes, []);
  } finally {
    await parser.close();
  }
});

test('closing fails the bodies still waiting, and later ones', async () => {
  const parser = new OffThreadJson();
  const pending = [parser.parse(blocks('{"a":1}')), parser.parse(blocks('{"b":2}'))].map((p) => assert.rejects(p, /closing/));
  await parser.close();
  await Promise.all(pending);
  await assert.rejects(parser.parse(blocks('{}')), /closed/);
});
