// Log follows are bounded per team, all log routes together (GANTRY_LOG_FOLLOWS_PER_TEAM):
// one past the bound is answered 429 with Retry-After, a plain read and another team are not
// affected, and a client that leaves gives its follow back. Over real sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { fixture, BASE } from '../../test/helpers/compute-fixture.ts';
import { createTeam } from '../../test/helpers/factories.ts';
import { as } from '../../test/helpers/http.ts';
import { LogFollowers } from './log-answer.ts';

test('a team follows at most GANTRY_LOG_FOLLOWS_PER_TEAM logs at once; a follow that ends frees its place', async () => {
  const f = await fixture({ env: { GANTRY_LOG_FOLLOWS_PER_TEAM: '3' } });
  const open: AbortController[] = [];
  try {
    const endpointOf = async (key: string) => {
      const r = await as(f.t.app, key).post(`${BASE}/endpoint/create`, {
        endpoint: { image: { image: 'x' }, ports: [{ port: 80 }], products: [{ id: 'prd_rtx4090_24g' }], workerConfig: { minNum: 0 } },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.id as string;
    };
    const ep = await endpointOf(f.team.owner.apiKey);
    const instance = await f.create();
    await f.t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(f.t.app.server.address() as { port: number }).port}${BASE}`;
    const get = async (path: string, key = f.team.owner.apiKey) => {
      const c = new AbortController();
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: c.signal });
      if (res.status === 200) open.push(c);
      return { res, leave: () => c.abort() };
    };
    const followers = LogFollowers.of(f.t.app, 0);
    const teamId = f.team.userId;

    // three follows of two routes: the bound
    const first = await get(`/endpoint/log?id=${ep}&follow=1&sse=1`);
    assert.equal(first.res.status, 200);
    assert.equal((await get(`/endpoint/log?id=${ep}&follow=1`)).res.status, 200);
    assert.equal((await get(`/gpu/instance/log?instanceId=${instance}&follow=1&sse=1`)).res.status, 200);
    assert.equal(followers.following(teamId), 3);

    const refused = await get(`/gpu/instance/log?instanceId=${instance}&follow=1`);
    assert.equal(refused.res.status, 429);
    assert.equal(refused.res.headers.get('retry-after'), '5');
    const body = await refused.res.json() as { reason: string; message: string };
    assert.equal(body.reason, 'RATE_LIMIT_EXCEEDED');
    assert.match(body.message, /already follows 3 logs at once.*close one, or read the log without follow=1/);
    assert.equal(followers.following(teamId), 3, 'a refused follow takes no place');

    // reading without follow, and another team's follows, are not bounded by this team's
    const plain = await get(`/endpoint/log?id=${ep}`);
    assert.equal(plain.res.status, 200);
    await plain.res.text();
    const other = await createTeam(f.t.app, f.t.creds.adminToken);
    assert.equal((await get(`/endpoint/log?id=${await endpointOf(other.owner.apiKey)}&follow=1`, other.owner.apiKey)).res.status, 200);

    // the client leaves: its place is given back
    const freed = once(followers, 'released');
    first.leave();
    assert.deepEqual(await freed, [teamId]);
    assert.equal(followers.following(teamId), 2);
    assert.equal((await get(`/gpu/instance/log?instanceId=${instance}&follow=1`)).res.status, 200);
  } finally {
    for (const c of open) c.abort();
    await f.close();
  }
});
