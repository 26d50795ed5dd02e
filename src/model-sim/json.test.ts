// The schema-driven generator: whatever schema fast-check draws from the structured-outputs
// vocabulary, the value validates against it (checked here with a separate ajv instance,
// not the generator's own), is the same for the same random stream, and schemas that
// cannot be satisfied are refused with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { jsonFor, Unsatisfiable } from './json.ts';
import { rng } from './text.ts';

const ajv = new Ajv({ strict: false, logger: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);

const leaf = fc.oneof(
  fc.record({ type: fc.constant('string'), minLength: fc.nat(5), maxLength: fc.integer({ min: 5, max: 40 }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('string'), format: fc.constantFrom('date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'hostname') }),
  fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -50, max: 0 }), maximum: fc.integer({ min: 0, max: 50 }) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('number'), minimum: fc.double({ min: -10, max: 0, noNaN: true }), exclusiveMaximum: fc.double({ min: 1, max: 10, noNaN: true }) }, { requiredKeys: ['type'] }),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: ['string', 'null'] }),
  fc.record({ enum: fc.uniqueArray(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 4 }) }),
  fc.record({ const: fc.jsonValue({ maxDepth: 2 }) }),
  fc.constant({ $ref: '#/$defs/point' }),
);

const schema = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.nat(2), maxItems: fc.integer({ min: 2, max: 4 }) }, { requiredKeys: ['type', 'items'] }),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), tie('node'), { maxKeys: 4 }).chain((properties) => fc.record({
      type: fc.constant('object'),
      properties: fc.constant(properties),
      required: fc.subarray(Object.keys(properties)),
      additionalProperties: fc.boolean(),
    })),
    fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
  ),
})).node.map((s) => ({
  ...s,
  $defs: { point: { type: 'object', required: ['x', 'y'], additionalProperties: false, properties: { x: { type: 'number' }, y: { type: 'number' } } } },
}));

test('every drawn schema gets a value that validates, the same for the same seed', () => {
  fc.assert(fc.property(schema, fc.integer(), (s, seed) => {
    const v = jsonFor(s, rng(seed));
    assert.ok(ajv.validate(s, v), `${JSON.stringify(v)} against ${JSON.stringify(s)}: ${ajv.errorsText()}`);
    assert.deepEqual(jsonFor(s, rng(seed)), v);
  }), { numRuns: 300, seed: 15 });
});

test('nested $defs and $ref, recursion, oneOf, allOf and formats', () => {
  const tree = {
    $defs: {
      node: {
        type: 'object', required: ['name', 'children', 'kind'], additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 3, maxLength: 12 },
          kind: { oneOf: [{ const: 'leaf' }, { const: 'branch' }] },
          children: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 3 },
          owner: { allOf: [{ type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] }, { properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] }] },
        },
      },
    },
    type: 'object', required: ['root', 'at'], properties: { root: { $ref: '#/$defs/node' }, at: { type: 'string', format: 'date-time' } },
  };
  for (let seed = 0; seed < 50; seed++) {
    const v = jsonFor(tree, rng(seed));
    assert.ok(ajv.validate(tree, v), ajv.errorsText());
  }
  const linked = { type: 'object', required: ['value'], properties: { value: { type: 'integer' }, next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } } };
  for (let seed = 0; seed < 20; seed++) assert.ok(ajv.validate(linked, jsonFor(linked, rng(seed))));
});

test('a schema that cannot be satisfied is refused, saying why', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ type: 'string', minLength: 5, maxLength: 2 }, /minLength 5 is above maxLength 2/],
    [{ type: 'integer', minimum: 3, maximum: 2 }, /no integer lies between/],
    [{ type: 'integer', minimum: 1.2, maximum: 1.8 }, /no integer lies between/],
    [{ type: 'array', minItems: 3, maxItems: 1 }, /minItems 3 is above maxItems 1/],
    [{ enum: [] }, /enum has no values|schema is invalid/],
    [{ type: 'object', properties: { a: { $ref: '#/$defs/missing' } }, required: ['a'] }, /schema is invalid|points at nothing/],
    [{ type: 'object', properties: {}, required: ['a'], additionalProperties: false }, /required property "a" is not among properties/],
    [{ type: 'object', properties: { a: { $ref: '#/properties/a' } }, required: ['a'] }, /nests deeper than|schema is invalid/],
    [{ type: 'object', required: ['self'], properties: { self: { $ref: '#' } } }, /nests deeper than/],
    [{ allOf: [{ type: 'string' }, { type: 'integer' }] }, /type lists no types/],
    [{ const: 'x', type: 'integer' }, /must be integer/],
    [{ type: 'string', pattern: '^[0-9]{3}-[A-Z]{7}$' }, /cannot write a string matching pattern/],
    [{ type: 'strin' }, /schema is invalid/],
  ];
  for (const [s, why] of cases) {
    assert.throws(() => jsonFor(s, rng(1)), (e: unknown) => e instanceof Unsatisfiable && why.test(e.message), JSON.stringify(s));
  }
});
