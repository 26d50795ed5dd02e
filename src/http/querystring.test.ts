import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from './querystring.ts';
import { buildTestApp } from '../../test/helpers/app.ts';
import { call } from '../../test/helpers/http.ts';

const plain = (q: Record<string, unknown>) => ({ ...q });

test('bracketed keys are the dotted parameter (compat.md), at any depth, encoded or not', () => {
  assert.deepEqual(plain(parseQuery('filter[visibility]=public&pagination[limit]=10')), { 'filter.visibility': 'public', 'pagination.limit': '10' });
  assert.deepEqual(plain(parseQuery('filter%5Bis_sdxl%5D=true&a[b][c]=1')), { 'filter.is_sdxl': 'true', 'a.b.c': '1' });
  assert.deepEqual(plain(parseQuery('filter.types=lora')), { 'filter.types': 'lora' });
  // qs-style arrays: `ids[]` is `ids`
  assert.deepEqual(plain(parseQuery('ids[]=1&ids[]=2&x[y][]=3')), { ids: ['1', '2'], 'x.y': '3' });
});

test('a parameter sent in both forms is repeated, as a repeated key is', () => {
  assert.deepEqual(plain(parseQuery('filter.types=lora&filter[types]=vae')), { 'filter.types': ['lora', 'vae'] });
});

test('anything else reads as Fastify reads it: plain keys, broken brackets, escapes, +', () => {
  assert.deepEqual(plain(parseQuery('')), {});
  assert.deepEqual(plain(parseQuery('a=1&a=2&b=x+y&c=%41')), { a: ['1', '2'], b: 'x y', c: 'A' });
  assert.deepEqual(plain(parseQuery('a[=1&[]=2&a]=3&a[b[c]]=4')), { 'a[': '1', '[]': '2', 'a]': '3', 'a[b[c]]': '4' });
  assert.equal(Object.getPrototypeOf(parseQuery('a[b]=1')), null, 'no prototype: __proto__ is only a key');
  assert.deepEqual(plain(parseQuery('__proto__[x]=1')), { '__proto__.x': '1' });
});

test('every route reads bracketed keys: the parser is the app\'s', async () => {
  const t = await buildTestApp();
  try {
    const url = '/openapi/v1/billing/bill/list';
    const dotted = await t.app.inject({ method: 'GET', url: `${url}?cycleType[]=Day&productCategory%5B%5D=gpu`, headers: { authorization: `Bearer ${t.creds.apiKey}` } });
    assert.equal(dotted.statusCode, 200, dotted.body);
    // a bracketed name is its own parameter: cycleType[x] is not cycleType
    const other = await call(t.app, 'GET', `${url}?cycleType[x]=Day&productCategory=gpu`, { token: t.creds.apiKey });
    assert.equal(other.status, 400);
    assert.equal(other.body.metadata.field, 'cycleType');
  } finally {
    await t.close();
  }
});
