// The auth throttle's rules that HTTP does not show: the address an IPv6 client counts as, and
// failures counted on the replica's own counters while the shared ones (Redis) are away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../lib/errors.ts';
import { ManualClock } from '../lib/clock.ts';
import { DependencyDown } from '../lib/dependencies.ts';
import { AuthThrottle, addressSubject, type AuthFailureCounter } from './auth-throttle.ts';
import { MemoryAuthFailures } from '../adapters/counters/auth-failures.ts';

test('an IPv6 client counts as its /64; an IPv4-mapped one as its IPv4 address', () => {
  assert.equal(addressSubject('203.0.113.7'), 'a:203.0.113.7');
  assert.equal(addressSubject('::ffff:203.0.113.7'), 'a:203.0.113.7');
  assert.equal(addressSubject('2001:db8:1:2:aaaa::1'), 'a:2001:db8:1:2::/64');
  assert.equal(addressSubject('2001:DB8:1:2:bbbb:cccc:dddd:eeee'), 'a:2001:db8:1:2::/64');
  assert.equal(addressSubject('2001:db8::1'), 'a:2001:db8:0:0::/64');
  assert.equal(addressSubject('fe80::1%eth0'), 'a:fe80:0:0:0::/64');
  assert.equal(addressSubject('::1'), 'a:0:0:0:0::/64');
});

test('while the shared counter cannot be reached, failures count on this replica\'s own', async () => {
  const clock = new ManualClock();
  let tried = 0;
  const down: AuthFailureCounter = {
    hit: async () => { tried++; throw new DependencyDown('redis'); },
    count: async () => { tried++; throw new DependencyDown('redis'); },
    close: async () => {},
  };
  let up = true;
  const errors: unknown[] = [];
  const th = new AuthThrottle({
    config: { windowMs: 60_000, perAddress: 2, perPrefix: 2 }, clock, shared: down, local: new MemoryAuthFailures(),
    sharedUp: () => up, onError: (e) => errors.push(e),
  });
  const wrong = new AppError('UNAUTHORIZED', 'the API key is invalid');
  assert.equal(await th.failed('203.0.113.1', 'sk_abcd1', wrong), wrong);
  assert.equal(tried, 1);
  up = false; // the dependency health knows: the shared counter is not even tried
  assert.equal(await th.failed('203.0.113.1', 'sk_abcd2', wrong), wrong, 'the second failure is still a 401');
  assert.equal(tried, 1);
  assert.equal(errors.length, 1);
  assert.throws(() => th.check('203.0.113.1', 'sk_zzzz'), (e: AppError) => e.reason === 'RATE_LIMIT_EXCEEDED' && e.headers?.['retry-after'] === '60');
  assert.equal(th.check('203.0.113.2', 'sk_zzzz'), undefined, 'another address');
  clock.advance(60_000);
  assert.equal(th.check('203.0.113.1', 'sk_zzzz'), undefined, 'the window ended');
});

test('with no limit per address, a locked prefix still refuses the addresses that failed at it, and only those', async () => {
  const clock = new ManualClock();
  const local = new MemoryAuthFailures();
  const th = new AuthThrottle({ config: { windowMs: 60_000, perAddress: 0, perPrefix: 2 }, clock, shared: local, local, sharedUp: () => true });
  const wrong = new AppError('UNAUTHORIZED', 'the API key is invalid');
  assert.equal(await th.failed('203.0.113.1', 'Bearer sk_abcdXXXX', wrong), wrong);
  assert.equal(await th.failed('203.0.113.2', 'sk_abcdYYYY', wrong), wrong, 'the limit is reached: the prefix is locked');
  await assert.rejects(async () => th.check('203.0.113.1', 'sk_abcdZZZZ'), (e: AppError) => e.reason === 'RATE_LIMIT_EXCEEDED' && e.metadata.scope === 'prefix');
  assert.equal(await th.check('203.0.113.9', 'sk_abcdZZZZ'), undefined, 'an address that never failed passes to the check');
  assert.equal(th.check('203.0.113.1', 'sk_otherKEY'), undefined, 'another prefix is not locked');
});
