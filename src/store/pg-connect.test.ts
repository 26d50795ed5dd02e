// What a failed first connection to PostgreSQL is told as (pg-connect.ts): the errors
// node-postgres and Node give, including the AggregateError of a host name with several
// addresses, and never the password. The real processes: test/database-url.services.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeTarget, explainConnectError } from './pg-connect.ts';

const URL_ = 'postgres://app:pw-secret@db.example:6543/billing';
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('where DATABASE_URL points, without the password; libpq-style defaults', () => {
  assert.deepEqual(describeTarget(URL_), { where: 'db.example:6543/billing', host: 'db.example', port: '6543', database: 'billing', user: 'app' });
  const d = describeTarget('postgresql://bob@10.0.0.1');
  assert.equal(d.port, '5432');
  assert.equal(d.database, 'bob', 'the database defaults to the user\'s name');
  assert.equal(describeTarget('postgres:///gantry?host=/var/run/postgresql').host, '/var/run/postgresql');
});

test('each kind of failure gets its sentence; other errors are left to the caller', () => {
  const refused = Object.assign(new AggregateError([withCode('connect ECONNREFUSED ::1:6543', 'ECONNREFUSED'), withCode('connect ECONNREFUSED 127.0.0.1:6543', 'ECONNREFUSED')], ''), { code: undefined });
  assert.match(explainConnectError(refused, URL_)!, /^cannot connect to PostgreSQL at db\.example:6543 \(DATABASE_URL, database "billing"\): connection refused\. Is PostgreSQL running there/);
  assert.match(explainConnectError(withCode('getaddrinfo ENOTFOUND db.example', 'ENOTFOUND'), URL_)!, /: no such host\./);
  assert.equal(explainConnectError(withCode('database "billing" does not exist', '3D000'), URL_),
    'the database "billing" does not exist on PostgreSQL at db.example:6543 (DATABASE_URL). Create it (createdb -h db.example -p 6543 -U app billing), or point DATABASE_URL at one that exists.');
  assert.match(explainConnectError(withCode('password authentication failed for user "app"', '28P01'), URL_)!, /refused user "app" .*Check the user and password in DATABASE_URL/);
  assert.match(explainConnectError(new Error('Connection terminated due to connection timeout'), URL_)!, /no answer within 10 s/);
  // wrapped by drizzle (a failed query's cause)
  assert.match(explainConnectError(new Error('Failed query: select 1', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }), URL_)!, /connection refused/);
  assert.equal(explainConnectError(withCode('syntax error at or near "selec"', '42601'), URL_), undefined);
  for (const e of [refused, withCode('x', '28P01'), withCode('x', '3D000')]) assert.doesNotMatch(explainConnectError(e, URL_)!, /pw-secret/);
});
