// One-time tickets are used once across replicas (domain/single-use.ts): two apps on one store
// and one Redis (a redis-server of the test's own). A port's link read from the first is
// exchanged on the second, then refused on the first; while Redis is away, each replica still
// refuses a ticket it took itself (fail open to per replica, as the auth throttle does). A web
// terminal's URL opened on one replica is refused on the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'undici';
import { fixture, BASE } from '../../../test/helpers/compute-fixture.ts';
import { startOwnRedis } from '../../../test/helpers/own-redis.ts';
import { buildApp } from '../../app.ts';
import { SimDriver } from '../../drivers/sim/driver.ts';
import { withTerminals } from '../../../test/helpers/fake-terminal.ts';
import { openTerminal, refusedWith } from '../../../test/helpers/terminal-client.ts';

const hasRedis = !!process.env.TEST_REDIS_URL || spawnSync('redis-server', ['--version']).status === 0;
const skip = !hasRedis && 'needs redis-server (CI has it: TEST_REDIS_URL)';

test('a port\'s ticket exchanged on one replica is refused on another; with Redis away each replica still refuses its own', { skip, timeout: 120_000 }, async (t) => {
  const redis = await startOwnRedis();
  t.after(() => redis.stop());
  const f = await fixture({ env: { REDIS_URL: redis.url, GANTRY_HOST: '127.0.0.1' } });
  t.after(() => f.close());
  const b = await buildApp({ config: f.t.config, store: f.t.store, clock: f.t.clock, logger: false, computeDriver: new SimDriver(f.t.clock) });
  t.after(() => b.app.close());
  const baseA = await f.t.app.listen({ host: '127.0.0.1', port: 0 });
  const baseB = await b.app.listen({ host: '127.0.0.1', port: 0 });
  const id = await f.create({ ports: '8888/http' });
  // an endpoint for the proxy to name; the exchange (a 303) never reaches it
  f.sim.servePort(id, 8888, '127.0.0.1:9');
  await f.until(id, 'running');
  /** A fresh link of the port (its path and ticket), as GET /gpu/instance gives it. */
  const link = async () => {
    const view = await f.t.app.inject({ method: 'GET', url: `${BASE}/gpu/instance?instanceId=${id}`, headers: { authorization: `Bearer ${f.team.owner.apiKey}` } });
    const address = new URL(JSON.parse(view.body).network.ports.find((p: { port: number }) => p.port === 8888).address);
    return `${address.pathname}${address.search}`;
  };
  const open = async (base: string, path: string) => {
    const r = await request(`${base}${path}`);
    return { status: r.statusCode, text: await r.body.text() };
  };

  const first = await link();
  assert.equal((await open(baseB, first)).status, 303, 'exchanged on B');
  const again = await open(baseA, first);
  assert.equal(again.status, 401, again.text);
  assert.match(JSON.parse(again.text).message, /ticket was used already/);

  // Redis away: a replica takes tickets on its own, and refuses one it took itself
  await redis.kill();
  const second = await link();
  assert.equal((await open(baseA, second)).status, 303, 'taken on A alone while Redis is away');
  assert.equal((await open(baseA, second)).status, 401, 'A refuses what it took itself');
});

test('a web terminal\'s URL opened on one replica is refused on another', { skip, timeout: 120_000 }, async (t) => {
  const redis = await startOwnRedis();
  t.after(() => redis.stop());
  const f = await fixture({ env: { REDIS_URL: redis.url, GANTRY_HOST: '127.0.0.1' } });
  t.after(() => f.close());
  withTerminals(f.sim);
  const driverB = new SimDriver(f.t.clock);
  const onB = withTerminals(driverB);
  const b = await buildApp({ config: f.t.config, store: f.t.store, clock: f.t.clock, logger: false, computeDriver: driverB });
  t.after(() => b.app.close());
  const baseA = await f.t.app.listen({ host: '127.0.0.1', port: 0 });
  f.t.config.serverless.publicBaseUrl = baseA; // where the URL points (the apps share the config)
  const baseB = await b.app.listen({ host: '127.0.0.1', port: 0 });
  const id = await f.create();
  await f.until(id, 'running');
  const view = await f.t.app.inject({ method: 'GET', url: `${BASE}/gpu/instance?instanceId=${id}`, headers: { authorization: `Bearer ${f.team.owner.apiKey}` } });
  const url = new URL(JSON.parse(view.body).connectComponentWebTerminal.url);
  const term = await openTerminal(`${baseB.replace(/^http/, 'ws')}${url.pathname}${url.search}`);
  t.after(() => term.ws.terminate());
  assert.equal(onB.length, 1, 'the shell is B\'s');
  const refused = await refusedWith(`${baseA.replace(/^http/, 'ws')}${url.pathname}${url.search}`);
  assert.equal(refused.status, 401, JSON.stringify(refused.body));
  assert.match(refused.body.message ?? '', /used already/);
});
