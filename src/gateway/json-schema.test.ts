// Schemas reach json-schema.ts from bodies already held to the nesting limit, and from
// elsewhere (batch lines, translations): compiling one nested past the limit is the client's
// 400 naming the rule, even one deep enough to overflow JSON.stringify.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../lib/errors.ts';
import { JSON_DEPTH_RULE } from '../lib/json-depth.ts';
import { compileSchema, SchemaError } from './json-schema.ts';
import { checkRequestRules } from './request-rules.ts';
import type { ModelBody } from './upstreams/upstream.ts';

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

test('a model body carrying one, however it was parsed, is a 400 naming the field and the rule', () => {
  const body = {
    model: 'm', messages: [{ role: 'user', content: 'x' }],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: nested(100_000) } } } }],
  } as unknown as ModelBody;
  assert.throws(() => checkRequestRules('chat.completions', body), (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.equal(e.reason, 'INVALID_REQUEST_BODY');
    assert.deepEqual([e.metadata.field, e.metadata.rule], ['tools.0.function.parameters', JSON_DEPTH_RULE]);
    return true;
  });
});
