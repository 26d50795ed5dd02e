// An instance's HTTP ports through a real listening Gantry on 127.0.0.1, the port's app a real
// HTTP (and WebSocket) server of the test's (the sim driver's servePort): host- and path-based
// addresses, who may reach a port and how (an API key; a link's one-time ticket exchanged for a
// cookie of that port only), that the app sees no Gantry credential, and that answers stream,
// WebSockets upgrade through and a large upload streams with bounded memory.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { WebSocket, WebSocketServer } from 'ws';
import { fixture, BASE, type Fixture } from '../../../test/helpers/compute-fixture.ts';
import { createTeam } from '../../../test/helpers/factories.ts';
import { linkReplicas } from '../../../test/helpers/change-hub.ts';
import { until } from '../../../test/helpers/wait.ts';
import { buildApp } from '../../app.ts';
import { SimDriver } from '../../drivers/sim/driver.ts';

const DOMAIN = 'ports.test';
const FAILURES = 8;
let f: Fixture;
let gantry: string;
let upstream: Server;
let id: string;
let release: () => void = () => {};
/** the upload's bytes the client has given, and the most of them at once not yet at the app */
const upload = { sent: 0, maxAhead: 0 };
const seen: { url: string; headers: IncomingMessage['headers'] }[] = [];

function app(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  seen.push({ url: req.url ?? '', headers: req.headers });
  if (req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first\n');
    release = () => res.end('last\n'); // ends only when the test has seen the first chunk
    return;
  }
  if (req.url === '/upload') {
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
      upload.maxAhead = Math.max(upload.maxAhead, upload.sent - bytes);
    });
    req.on('end', () => res.end(JSON.stringify({ bytes })));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['gantry_port=evil; Path=/', 'theirs=1; Path=/'] });
  res.end(JSON.stringify({ url: req.url, headers: req.headers }));
}

before(async () => {
  // failed sign-ins from one address: the throttle's test below reaches this many from addresses of its own
  f = await fixture({ env: { GANTRY_PORTS_DOMAIN: DOMAIN, GANTRY_HOST: '127.0.0.1', GANTRY_AUTH_FAILURES_PER_ADDRESS: String(FAILURES) } });
  upstream = createServer(app);
  new WebSocketServer({ server: upstream }).on('connection', (ws, req) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    ws.on('message', (m) => ws.send(`echo:${String(m)}`));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  await f.t.app.listen({ port: 0, host: '127.0.0.1' });
  gantry = `http://127.0.0.1:${(f.t.app.server.address() as AddressInfo).port}`;
  id = await f.create({ templateId: 'tpl_official_pytorch', ports: '8888/http,3306/tcp' });
  f.sim.servePort(id, 8888, `127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  await f.until(id, 'running');
});

after(async () => {
  await f.close();
  upstream.closeAllConnections();
  upstream.close();
});

const key = () => f.team.owner.apiKey;
const host = (port = 8888) => `${id.replace('_', '-')}-${port}.${DOMAIN}`;

async function get(path: string, headers: Record<string, string> = {}) {
  const r = await request(`${gantry}${path}`, { headers });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}

test('path form: an API key reaches the port; the app sees its own path and cookies, never a Gantry credential; answers are sandboxed', async () => {
  const r = await get(`/ports/${id}/8888/echo?a=1`, { authorization: `Bearer ${key()}`, cookie: 'gantry_session=s; gantry_port=p; app=1', 'x-api-key': key() });
  assert.equal(r.status, 200, r.text);
  const got = JSON.parse(r.text);
  assert.equal(got.url, '/echo?a=1');
  assert.equal(got.headers.authorization, undefined);
  assert.equal(got.headers['x-api-key'], undefined);
  assert.equal(got.headers.cookie, 'app=1');
  assert.equal(got.headers['x-forwarded-prefix'], `/ports/${id}/8888`);
  assert.ok(!r.text.includes(key()));
  assert.equal(r.headers['set-cookie'], undefined, 'no cookie of the app on the console origin');
  assert.ok(String(r.headers['content-security-policy']).includes('sandbox'));
});

test('access: no key 401, another team\'s key 404, Basic and Billing 403, a tcp or unknown port 404', async () => {
  assert.equal((await get(`/ports/${id}/8888/`)).status, 401);
  const other = await createTeam(f.t.app, f.t.creds.adminToken);
  const foreign = await get(`/ports/${id}/8888/`, { authorization: `Bearer ${other.owner.apiKey}` });
  assert.equal(foreign.status, 404, foreign.text);
  for (const role of ['Basic', 'Billing'] as const) {
    const r = await get(`/ports/${id}/8888/`, { authorization: `Bearer ${f.team.members[role].apiKey}` });
    assert.equal(r.status, 403, `${role}: ${r.text}`);
  }
  const dev = await get(`/ports/${id}/8888/`, { authorization: `Bearer ${f.team.members.Developer.apiKey}` });
  assert.equal(dev.status, 200, dev.text);
  const tcp = await get(`/ports/${id}/3306/`, { authorization: `Bearer ${key()}` });
  assert.equal(tcp.status, 404);
  assert.match(JSON.parse(tcp.text).message, /tcp port/);
  assert.equal((await get(`/ports/${id}/9999/`, { authorization: `Bearer ${key()}` })).status, 404);
  assert.equal((await get(`/ports/ins_nothing/8888/`, { authorization: `Bearer ${key()}` })).status, 404);
});

test('connectComponentJupyter: the template\'s Jupyter port, its address with a ticket, answering; the ticket becomes a cookie of that host only', async () => {
  const view = await f.get(id);
  assert.equal(view.connectComponentJupyter.port, 8888);
  assert.equal(view.connectComponentJupyter.isRunning, true);
  const address = new URL(view.connectComponentJupyter.address);
  assert.equal(address.host, host());
  const ticket = address.searchParams.get('gantry_ticket');
  assert.ok(ticket);
  const links = view.network.ports as { port: number; address: string }[];
  assert.equal(new URL(links.find((x) => x.port === 8888)!.address).host, host(), 'the console\'s Open link of the http port');
  assert.equal(links.find((x) => x.port === 3306)!.address, '', 'a tcp port has none');
  assert.ok(view.portMappings.find((p: { port: number }) => p.port === 8888).endpoint.startsWith('127.0.0.1:'), 'the direct endpoint stays shown');

  const before = seen.length;
  const opened = await get(`/lab?x=2&gantry_ticket=${ticket}`, { host: host() });
  assert.equal(opened.status, 303, opened.text);
  assert.equal(opened.headers.location, '/lab?x=2');
  const setCookie = String(opened.headers['set-cookie']);
  assert.match(setCookie, /^gantry_port=p1\.[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
  assert.ok(!/domain=/i.test(setCookie), 'host-only');
  assert.equal(seen.length, before, 'the app never saw the ticket');
  assert.equal((await get(`/lab?gantry_ticket=${ticket}`, { host: host() })).status, 401, 'a ticket is used once');

  const cookie = setCookie.split(';')[0]!;
  const r = await get('/lab?x=2', { host: host(), cookie: `${cookie}; gantry_session=s; app=1` });
  assert.equal(r.status, 200, r.text);
  const got = JSON.parse(r.text);
  assert.equal(got.url, '/lab?x=2');
  assert.equal(got.headers.cookie, 'app=1');
  assert.deepEqual([r.headers['set-cookie']].flat(), ['theirs=1; Path=/'], 'the app cannot set Gantry\'s cookie');
  assert.equal((await get('/', { host: host(3306), cookie })).status, 401, 'the cookie opens no other port');
  assert.equal((await get(`/ports/${id}/8888/`, { cookie })).status, 200, 'the path form reads the same pass');
  // a role that may not reach ports gets no address
  const basic = await f.t.app.inject({ method: 'GET', url: `${BASE}/gpu/instance?instanceId=${id}`, headers: { authorization: `Bearer ${f.team.members.Basic.apiKey}` } });
  assert.equal(JSON.parse(basic.body).connectComponentJupyter.address, '');
});

test('a revoked key ends what its key and its port cookie reach, at the next request', async () => {
  const admin = { authorization: `Bearer ${f.t.creds.adminToken}`, 'content-type': 'application/json' };
  const k = JSON.parse((await f.t.app.inject({ method: 'POST', url: `/admin/v1/members/${f.team.members.Developer.memberId}/keys`, headers: admin, payload: { name: 'ports' } })).body);
  const view = await f.t.app.inject({ method: 'GET', url: `${BASE}/gpu/instance?instanceId=${id}`, headers: { authorization: `Bearer ${k.apiKey}` } });
  const link = new URL(JSON.parse(view.body).connectComponentJupyter.address);
  const opened = await get(`${link.pathname}${link.search}`, { host: link.host });
  assert.equal(opened.status, 303, opened.text);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  // both are served first, so what they stand for is in the replica's caches when the key goes
  assert.equal((await get('/', { host: host(), cookie })).status, 200);
  assert.equal((await get(`/ports/${id}/8888/`, { authorization: `Bearer ${k.apiKey}` })).status, 200);
  assert.equal((await f.t.app.inject({ method: 'POST', url: `/admin/v1/keys/${k.keyId}/revoke`, headers: admin, payload: {} })).statusCode, 200);
  assert.equal((await get('/', { host: host(), cookie })).status, 401, 'the cookie stands for the key, as of now');
  assert.equal((await get(`/ports/${id}/8888/`, { authorization: `Bearer ${k.apiKey}` })).status, 401);
});

test('streaming: the first chunk arrives before the answer ends', async () => {
  const r = await request(`${gantry}/ports/${id}/8888/stream`, { headers: { authorization: `Bearer ${key()}` } });
  assert.equal(r.statusCode, 200);
  const chunks: string[] = [];
  for await (const c of r.body) {
    chunks.push(String(c));
    if (chunks.length === 1) release();
  }
  assert.equal(chunks[0], 'first\n');
  assert.equal(chunks.join(''), 'first\nlast\n');
});

test('a WebSocket upgrades through the host form, with no Gantry credential reaching the app', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${new URL(gantry).port}/ws`, { headers: { host: host(), authorization: `Bearer ${key()}`, cookie: 'gantry_session=s' } });
  await once(ws, 'open');
  ws.send('hi');
  const [m] = await once(ws, 'message');
  assert.equal(String(m), 'echo:hi');
  const upgradeSeen = seen.findLast((s) => s.url === '/ws')!;
  assert.equal(upgradeSeen.headers.authorization, undefined);
  assert.equal(upgradeSeen.headers.cookie, undefined);
  ws.close();
  await once(ws, 'close');
});

test('a 50 MB upload streams through: the proxy holds a few MB of it at most, never the whole', async () => {
  const size = 50 * 1024 * 1024;
  const chunk = Buffer.alloc(1024 * 1024, 7);
  const body = new Readable({
    read() {
      if (upload.sent >= size) return void this.push(null);
      upload.sent += chunk.length;
      this.push(chunk);
    },
  });
  const r = await request(`${gantry}/ports/${id}/8888/upload`, { method: 'POST', body, headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/octet-stream' } });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(await r.body.json(), { bytes: size });
  // what the client gave and the app had not yet got: in the sockets' and the streams' buffers
  assert.ok(upload.maxAhead < 16 * 1024 * 1024, `${upload.maxAhead >> 20} MB were between the client and the app at once`);
});

test('failed port sign-ins are throttled per address as API keys are: 429 past the limit, before any credential is checked', async () => {
  const from = '198.51.100.7';
  const call = (headers: Record<string, string>, remoteAddress = from, url = `/ports/${id}/8888/`) =>
    f.t.app.inject({ method: 'GET', url, headers, remoteAddress });
  // a forged cookie, a forged ticket, a wrong key: each counts against the address
  const wrong: Record<string, string>[] = [
    { cookie: 'gantry_port=p1.e30.forged' }, { authorization: 'Bearer sk_wrongwrongwrongwrongwrongwrong' },
  ];
  for (let i = 0; i < FAILURES; i++) {
    const r = i % 3 === 2 ? await call({}, from, `/ports/${id}/8888/?gantry_ticket=p1.e30.forged`) : await call(wrong[i % 3]!);
    assert.equal(r.statusCode, 401, `failure ${i + 1}: ${r.body}`);
  }
  const locked = await call(wrong[0]!);
  assert.equal(locked.statusCode, 429, locked.body);
  assert.equal(JSON.parse(locked.body).metadata.rule, 'auth_failures');
  assert.ok(Number(locked.headers['retry-after']) > 0);
  // refused before the credential is looked at: the team's own key is no way out of it
  assert.equal((await call({ authorization: `Bearer ${key()}` })).statusCode, 429);
  // another address is not affected, and no credential at all is no guess (not counted)
  assert.equal((await call({ cookie: 'gantry_port=p1.e30.forged' }, '198.51.100.8')).statusCode, 401);
  for (let i = 0; i <= FAILURES; i++) assert.equal((await call({}, '198.51.100.9')).statusCode, 401);
});

test('a port taken off the instance (edit) is refused at the next request, and served again once put back', async () => {
  const auth = { authorization: `Bearer ${key()}` };
  assert.equal((await get(`/ports/${id}/8888/`, auth)).status, 200); // cached
  const edit = (ports: string) => f.owner.post(`${BASE}/gpu/instance/edit`, { instanceId: id, ports });
  assert.equal((await edit('3306/tcp')).status, 200);
  const gone = await get(`/ports/${id}/8888/`, auth);
  assert.equal(gone.status, 404, gone.text);
  assert.equal((await edit('8888/http,3306/tcp')).status, 200);
  assert.equal((await get(`/ports/${id}/8888/`, auth)).status, 200);
});

test('a stopped instance is refused at once: at the next request on the replica that stopped it, on another as soon as the change reaches it', async (t) => {
  // a second replica on the same store, its change channel linked as LISTEN/NOTIFY links replicas
  const b = await buildApp({ config: f.t.config, store: f.t.store, clock: f.t.clock, logger: false, computeDriver: new SimDriver(f.t.clock) });
  t.after(() => b.app.close());
  await linkReplicas(f.t.store, [f.t.services.ctx.changes, b.services.ctx.changes]);
  const baseB = await b.app.listen({ host: '127.0.0.1', port: 0 });
  const auth = { authorization: `Bearer ${key()}` };
  const onB = async () => {
    const r = await request(`${baseB}/ports/${id}/8888/`, { headers: auth });
    return { status: r.statusCode, text: await r.body.text() };
  };
  // both replicas have served the port: the instance is in each one's routing cache
  assert.equal((await get(`/ports/${id}/8888/`, auth)).status, 200);
  assert.equal((await onB()).status, 200);
  const heard = b.services.ctx.changes.received.get('instance.changed') ?? 0;
  assert.equal((await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: id })).status, 200);
  const now = await get(`/ports/${id}/8888/`, auth);
  assert.equal(now.status, 503, now.text);
  assert.match(JSON.parse(now.text).message, /is (toStop|stopping): its ports answer while it runs/);
  await until('replica B hears of the stop', () => (b.services.ctx.changes.received.get('instance.changed') ?? 0) > heard);
  const there = await onB();
  assert.equal(there.status, 503, there.text);
  await f.until(id, 'exited');
  const r = await get(`/ports/${id}/8888/`, auth);
  assert.equal(r.status, 503);
  assert.match(JSON.parse(r.text).message, /is exited: its ports answer while it runs/);
  const view = await f.get(id);
  assert.deepEqual(view.connectComponentJupyter, { port: 8888, address: '', isRunning: false });
});
