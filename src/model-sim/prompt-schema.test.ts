// Which JSON Schema a JSON-mode prompt gives (the answer through HTTP is checked in
// gateway/openai-sdk-json-mode.test.ts): the latest system/user message holding one, a
// ```json fence before bare text, objects that are no schema passed over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaInPrompt } from './prompt-schema.ts';

const S = { type: 'object', properties: { a: { type: 'string' } } };
const T = { type: 'array', items: { type: 'integer' } };
const user = (content: unknown) => ({ role: 'user', content });

test('the schema a prompt gives, and none where it gives none', () => {
  assert.deepEqual(schemaInPrompt([user(`Answer as ${JSON.stringify(S)} please`)]), S);
  assert.deepEqual(schemaInPrompt([user([{ type: 'text', text: `Schema: ${JSON.stringify(T)}` }])]), T, 'text parts are read');
  // an example answer before the schema is passed over; so is one that nests the schema
  assert.deepEqual(schemaInPrompt([user(`e.g. {"a": "x"}; schema: ${JSON.stringify(S)}`)]), S);
  assert.deepEqual(schemaInPrompt([user(`{"example": {"b": 1}, "schema": ${JSON.stringify(S)}}`)]), S);
  // a fence wins over bare text before it
  assert.deepEqual(schemaInPrompt([user(`Not this: ${JSON.stringify(T)}\n\`\`\`json\n${JSON.stringify(S)}\n\`\`\``)]), S);
  // the latest message that holds one; assistant and tool messages are not instructions
  assert.deepEqual(schemaInPrompt([{ role: 'system', content: JSON.stringify(T) }, user(JSON.stringify(S)), { role: 'assistant', content: JSON.stringify(T) }]), S);
  assert.equal(schemaInPrompt([user('{"a": 1} and {"b": [1, 2]}')]), undefined, 'objects that are no schema');
  assert.equal(schemaInPrompt([user('{"type": "object", "properties": {')]), undefined, 'never closed');
  assert.equal(schemaInPrompt([user(`{ unclosed, then ${JSON.stringify(S)}`)]), undefined, 'an unclosed brace ends the search (each scan stays linear)');
  assert.equal(schemaInPrompt('not a list'), undefined);
});
