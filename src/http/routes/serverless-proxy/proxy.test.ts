// The serverless data plane keeps Gantry's credentials away from a tenant's code: API keys
// only (a console session cookie is refused), no Gantry cookie, key or CSRF token reaches a
// worker, and a worker's answer cannot set Gantry's cookies nor run script as the console
// (path form: Set-Cookie dropped, CSP sandbox; host form: only cookies that stay on the
// endpoint's own host). Workers are the sim driver's real HTTP servers (`x-sim-headers`
// makes one answer with the headers asked for).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, BASE, PRODUCT, type Fixture } from '../../../../test/helpers/compute-fixture.ts';

async function serving(f: Fixture, appName: string): Promise<void> {
  const r = await f.owner.post(`${BASE}/endpoint/create`, {
    endpoint: {
      name: appName, appName, image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8000 }], products: [{ id: PRODUCT }],
      healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
      workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 60, maxConcurrent: 4, gpuNum: 1, requestTimeout: 60 },
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (let i = 0; i < 120; i++) {
    const ep = await f.owner.get(`${BASE}/endpoint`, { id: r.body.id });
    if (ep.body.endpoint.state.state === 'serving') return;
    f.t.clock.advance(1000);
    await f.t.services.serverlessRuntime.reconcile();
  }
  assert.fail(`endpoint ${appName} never served`);
}

/** A console session opened with the team Owner's key: its cookie and CSRF token. */
async function consoleSession(f: Fixture): Promise<{ cookie: string; csrf: string }> {
  const res = await f.t.app.inject({ method: 'POST', url: '/console/session', payload: { apiKey: f.team.owner.apiKey } });
  assert.equal(res.statusCode, 200, res.body);
  const m = /^gantry_session=([A-Za-z0-9_-]+);/.exec(String(res.headers['set-cookie']));
  assert.ok(m);
  return { cookie: `gantry_session=${m[1]}`, csrf: JSON.parse(res.body).csrfToken };
}

const WORKER_COOKIES = ['gantry_session=evil; Path=/', 'theirs=2; Path=/; HttpOnly', 'wide=1; Domain=example.com; Path=/', '__Host-Gantry_x=1; Path=/; Secure', '=gantry_session=evil2'];
const askWorker = JSON.stringify({ 'set-cookie': WORKER_COOKIES, 'content-type': 'text/html', 'clear-site-data': '"cookies"', 'content-security-policy': "default-src 'self'" });

test('path form: a session cookie alone is refused; the worker sees no Gantry credential; its cookies and script stay off the console origin', async () => {
  const f = await fixture();
  try {
    await serving(f, 'web');
    const s = await consoleSession(f);
    // the cookie is live (it reads the balance) but not a credential of the data plane
    const balance = await f.t.app.inject({ method: 'GET', url: '/openapi/v1/billing/balance/detail', headers: { cookie: s.cookie } });
    assert.equal(balance.statusCode, 200, balance.body);
    for (const method of ['GET', 'POST'] as const) {
      const r = await f.t.app.inject({ method, url: '/serverless/web/x', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, ...(method === 'POST' ? { payload: '{}' } : {}) });
      assert.equal(r.statusCode, 401, `${method} with the session cookie: ${r.body}`);
      assert.equal(JSON.parse(r.body).reason, 'INVALID_API_KEY');
    }

    const r = await f.t.app.inject({
      method: 'GET', url: '/serverless/web/page',
      headers: {
        authorization: `Bearer ${f.team.owner.apiKey}`, cookie: `theirs=1; ${s.cookie}; __Secure-gantry_other=2; app_pref=dark`,
        'x-api-key': f.team.owner.apiKey, 'x-csrf-token': s.csrf, 'x-sim-headers': askWorker,
      },
    });
    assert.equal(r.statusCode, 200, r.body);
    const seen = JSON.parse(r.body).headers as Record<string, string>;
    assert.equal(seen.cookie, 'theirs=1; app_pref=dark', 'the worker keeps its own cookies, never Gantry\'s');
    assert.equal(seen['x-api-key'], undefined);
    assert.equal(seen['x-csrf-token'], undefined);
    assert.ok(!r.body.includes(s.cookie.split('=')[1]!) && !r.body.includes(f.team.owner.apiKey) && !r.body.includes(s.csrf), r.body);

    assert.equal(r.headers['set-cookie'], undefined, 'no cookie of a worker on the console origin');
    assert.equal(r.headers['clear-site-data'], undefined);
    assert.deepEqual([r.headers['content-security-policy']].flat(), ["default-src 'self'", 'sandbox']);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['content-type'], 'text/html');
  } finally {
    await f.close();
  }
});

test('host form: the worker\'s host-only cookies pass, none named like Gantry\'s nor with a Domain; the session cookie is refused there too', async () => {
  const f = await fixture({ env: { GANTRY_PUBLIC_URL: 'https://api.example.com', GANTRY_SERVERLESS_DOMAIN: 'run.example.com' } });
  try {
    await serving(f, 'hosted');
    const s = await consoleSession(f);
    const host = 'hosted.run.example.com';
    const refused = await f.t.app.inject({ method: 'GET', url: '/x', headers: { host, cookie: s.cookie } });
    assert.equal(refused.statusCode, 401, refused.body);

    const r = await f.t.app.inject({
      method: 'GET', url: '/page', headers: { host, authorization: `Bearer ${f.team.owner.apiKey}`, cookie: `${s.cookie}; theirs=1`, 'x-sim-headers': askWorker },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(JSON.parse(r.body).headers.cookie, 'theirs=1');
    assert.deepEqual([r.headers['set-cookie']].flat(), ['theirs=2; Path=/; HttpOnly']);
    assert.equal(r.headers['clear-site-data'], undefined);
    assert.equal(r.headers['content-security-policy'], "default-src 'self'", 'an origin of its own: the worker\'s policy, not a sandbox');
  } finally {
    await f.close();
  }
});
