// Log redaction on a real logger (Fastify's pino, as buildApp makes it): secret-named fields,
// the values a database error quotes, and anything shaped like a key never reach a line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { cleanErrorMessage, redactingLoggerOptions, serializeError } from './log-redaction.ts';

const KEY = 'sk_' + 'Q'.repeat(43);
const HASH = 'ab'.repeat(32);

function logger() {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const app = Fastify({ logger: redactingLoggerOptions({ level: 'trace', stream }) });
  return { log: app.log, lines, text: () => JSON.stringify(lines) };
}

/** A database error as Drizzle throws it: the SQL, its parameters, and the driver's error as cause. */
function queryError(params: unknown[]): Error {
  const cause = Object.assign(new Error('duplicate key value violates unique constraint "api_keys_secret_hash_unique"'), {
    code: '23505', constraint: 'api_keys_secret_hash_unique', table: 'api_keys', detail: `Key (secret_hash)=(${HASH}) already exists.`,
    where: 'SQL statement', params, query: 'insert into "api_keys" ("id", "secret_hash") values ($1, $2)',
  });
  const e = new Error(`Failed query: insert into "api_keys" ("id", "secret_hash") values ($1, $2)\nparams: ${params.join(',')}`, { cause });
  return Object.assign(e, { query: 'insert into "api_keys" ("id", "secret_hash") values ($1, $2)', params });
}

test('a failed query is logged with its SQL, codes and names, never its parameters or row detail', () => {
  const { log, lines, text } = logger();
  const e = queryError(['key_1', HASH, 'plain-param-value']);
  log.error({ err: e }, 'request failed');
  log.error(e); // pino would take the raw message as the line's msg
  log.child({ reqId: 'r1' }).warn({ err: e }, 'from a child logger');
  assert.equal(lines.length, 3);
  for (const l of lines) {
    assert.match(l.err.message, /^Failed query: insert into "api_keys"/);
    assert.equal(l.err.cause.constraint, 'api_keys_secret_hash_unique');
    assert.equal(l.err.cause.code, '23505');
    assert.ok(l.err.stack.includes('log-redaction.test.ts'), 'stack frames are kept');
  }
  assert.equal(lines[1].msg, lines[1].err.message);
  assert.ok(!text().includes(HASH) && !text().includes('plain-param-value'), text());
  assert.ok(!/"(params|detail|where)"/.test(text()));
});

test('secret-named fields are replaced at any depth; keys, tokens and digests in text are scrubbed', () => {
  const { log, text } = logger();
  log.info({
    headers: { authorization: `Bearer ${KEY}`, cookie: 'session=c00kie-value', 'x-api-key': 'xk-value-123' },
    body: { template: { name: 'ok-name', imageAuth: 'bob:tpl-pass-1' }, password: 'reg-pass-1', api_key: 'ak-value-1' },
    list: [{ secret: 's3cret-in-list' }],
  }, 'a request');
  log.warn(`presented ${KEY} with digest ${HASH} and gop_${'z'.repeat(43)}; pulled https://bob:url-pass-1@ghcr.io/x`);
  log.info({ keyHash: HASH }, 'Bearer %s', KEY);
  const t = text();
  for (const s of [KEY, HASH, 'c00kie-value', 'xk-value-123', 'tpl-pass-1', 'reg-pass-1', 'ak-value-1', 's3cret-in-list', 'z'.repeat(43), 'url-pass-1']) {
    assert.ok(!t.includes(s), `${s} in ${t}`);
  }
  assert.ok(t.includes('ok-name'), 'ordinary fields stay');
  log.info(`pulled ghcr.io/acme/app@sha256:${HASH}`);
  assert.ok(text().includes(`@sha256:${HASH}`), 'an image digest is not a secret');
});

test('database messages lose the values they quote', () => {
  for (const [raw, kept] of [
    ['invalid input syntax for type bigint: "sk_leaked-value"', 'invalid input syntax for type bigint: "[redacted]"'],
    ['value "99999999999" is out of range for type integer', 'value "[redacted]" is out of range for type integer'],
    ['Key (email)=(a@b.c) already exists.', 'Key (email)=([redacted]) already exists.'],
    ['Failing row contains (tpl_1, secret-ish, 50).', 'Failing row contains ([redacted]).'],
    ['Failed query: select 1\nparams: a,b', 'Failed query: select 1'],
    ['relation "api_keys" does not exist', 'relation "api_keys" does not exist'],
  ] as const) assert.equal(cleanErrorMessage(raw), kept);
  assert.deepEqual(Object.keys(serializeError(Object.assign(new Error('x'), { params: [1], body: 'b', headers: {}, statusCode: 502 }))).sort(), ['message', 'stack', 'statusCode', 'type']);
});
