// Schemas reach json-schema.ts from bodies already held to the nesting limit, and from
// elsewhere (batch lines, translations): compiling one nested past the limit is a SchemaError
// naming the rule (the client's 400: gateway/request-rules.test.ts), even one deep enough to
// overflow JSON.stringify.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSON_DEPTH_RULE } from './json-depth.ts';
import { compileSchema, SchemaError } from './json-schema.ts';

/** `{type: array, items: …}` nested to `levels` levels of JSON objects. */
function nested(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) s = { type: 'array', items: s };
  return s;
}

test('a schema nested past the limit is a SchemaError naming the rule; at the limit it compiles', () => {
  assert.equal(compileSchema(nested(128))(Array(127).fill(0).reduce((v) => [v], 'x')), true);
  for (const levels of [129, 100_000]) {
    assert.throws(() => compileSchema(nested(levels)), (e: unknown) => {
      assert.ok(e instanceof SchemaError, String(e));
      assert.equal(e.rule, JSON_DEPTH_RULE);
      return true;
    }, `${levels} levels`);
  }
});
