// The web console's pure helpers, without a browser: amounts (src/console/money.js), tables
// (table.js), a month's spend (spend-sums.js) and the serverless create form (endpoint-form.js).
// They import nothing of the DOM: the server's type-check, which has no DOM, checks them too
// through this file. What the pages make of them is the browser tests' (*.browser.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inDollars, money, parseDollars, usd, usdDecimal } from '../src/console/money.js';
import { csvText, pageCount, scrollEdges } from '../src/console/table.js';
import { monthStart, spendByKey, spendOfKeys } from '../src/console/spend-sums.js';
import { BLANK, checkEndpointForm, endpointBody, formFieldOf, wholeIn } from '../src/console/endpoint-form.js';
import { checkEnvRows, envControlOf, envPairs } from '../src/console/envs.js';
import { baseUrls, callSnippets } from '../src/console/call-snippets.js';
import { BLANK as INSTANCE_BLANK, checkInstanceForm, instanceBody, instanceControlOf, withTemplate } from '../src/console/instance-form.js';

test('money: units as exact dollars, at least two decimals, every digit there is; a minus sign, thousands grouped', () => {
  assert.deepEqual(
    [money('15000'), money(12345), money('-5'), money(0), money(10n), money(100n), money(1234567890000), money(null), money(undefined), money('')],
    ['$1.50', '$1.2345', '−$0.0005', '$0.00', '$0.001', '$0.01', '$123,456,789.00', '—', '—', '—'],
  );
  assert.equal(money('90071992547409930001'), '$9,007,199,254,740,993.0001', 'beyond 2^53: a BigInt, not a float');
});

test('usd: units rounded to cents, half away from zero; no minus on an amount that rounds to nothing', () => {
  assert.deepEqual([usd(15000), usd(12345), usd(12350), usd(-12350), usd(-49), usd(1234567890000), usd(null)],
    ['$1.50', '$1.23', '$1.24', '−$1.24', '$0.00', '$123,456,789.00', '—']);
});

test('usdDecimal: a plain decimal a spreadsheet reads, every digit kept, no trailing zeros', () => {
  assert.deepEqual([usdDecimal(123456), usdDecimal(-5000), usdDecimal(10000), usdDecimal('7'), usdDecimal('')], ['12.3456', '-0.5', '1', '0.0007', '']);
});

test('parseDollars: dollars as typed (a $, commas, up to 4 decimals) to units, or why not, the range said in dollars', () => {
  assert.deepEqual(parseDollars('30', { min: 0n }), { units: '300000' });
  assert.deepEqual(parseDollars(' $1,234.5 ', { min: 0n }), { units: '12345000' });
  assert.deepEqual(parseDollars('0.0001', { min: 1n }), { units: '1' });
  assert.deepEqual(parseDollars('12.34567', { min: 0n }), { error: 'enter dollars, like 30 or 12.50 (at most 4 decimals)' });
  assert.deepEqual(parseDollars('-3', { min: 0n }), { error: 'enter dollars, like 30 or 12.50 (at most 4 decimals)' });
  assert.deepEqual(parseDollars('', { min: 0n }), { error: 'enter an amount in dollars' });
  assert.deepEqual(parseDollars('0.5', { min: 10000n }), { error: 'must be at least $1.00' });
  assert.deepEqual(parseDollars('100', { min: 0n, max: 100000n }), { error: 'must be at most $10.00' });
  assert.deepEqual(parseDollars('10', { min: 0n, max: 100000n }), { units: '100000' }, 'the bound itself is allowed');
});

test('inDollars: the API\'s messages told in dollars, never in its units', () => {
  assert.deepEqual([
    inDollars('needs 15000 units ($1.50) more'), inDollars('at most 5000 (1/10000 USD)'), inDollars('price 15000 (1.50 USD) a call'),
    inDollars('25 units left'), inDollars('30000 units left'), inDollars('no amount here'),
  ], ['needs $1.50 more', 'at most 5000', 'price $1.50 a call', '$0.0025 left', '$3.00 left', 'no amount here']);
});

test('tables: at least one page; CSV with the first row\'s columns, quoting what must be quoted', () => {
  assert.deepEqual([pageCount(0, 20), pageCount(20, 20), pageCount(21, 20), pageCount(1, 1)], [1, 1, 2, 1]);
  assert.equal(csvText([]), '');
  assert.equal(
    csvText([{ a: 1, b: 'x,y', c: true }, { a: null, b: 'say "hi"\nbye' }, { b: 0n, c: undefined, d: 'not a column' }]),
    'a,b,c\n1,"x,y",true\n,"say ""hi""\nbye",\n,0,',
  );
});

test('a month\'s spend: the UTC month\'s start, each key\'s bills summed exactly, a member\'s keys summed', () => {
  const feb1 = Date.UTC(2026, 1, 1) / 1000;
  assert.equal(monthStart(Date.UTC(2026, 1, 15, 13, 30)), feb1);
  assert.equal(monthStart(Date.UTC(2026, 1, 1)), feb1, 'the first instant is the month\'s');
  assert.equal(monthStart(Date.UTC(2026, 1, 1) - 1), Date.UTC(2026, 0, 1) / 1000, 'a millisecond before is the month before\'s');
  const byKey = spendByKey([
    { ownerID: 'k1', amount: '100' }, { ownerID: 'k2', amount: '9007199254740993' }, { ownerID: 'k1', amount: '-30' }, { ownerID: 'k2', amount: '1' },
  ]);
  assert.deepEqual([...byKey], [['k1', 70n], ['k2', 9007199254740994n]]);
  assert.equal(spendOfKeys([{ keyId: 'k1' }, { keyId: 'k3' }], byKey), 70n, 'a key without bills spent nothing');
  assert.equal(spendOfKeys([], byKey), 0n);
});

const LIMITS = {
  minGPUNum: 1, maxGPUNum: 8, minWorkerNum: 0, maxWorkerNum: 10, minConcurrencyNum: 1, maxConcurrencyNum: 100,
  minQueueWaitTime: 1, maxQueueWaitTime: 3600, minRequestNum: 1, maxRequestNum: 1000,
};

test('the endpoint form\'s numbers: whole numbers in range', () => {
  assert.deepEqual([wholeIn('', 1, 3), wholeIn('x', 1, 3), wholeIn('1.5', 1, 3), wholeIn('5', 1, 3), wholeIn(' 2 ', 1, 3)],
    ['required', 'must be a whole number', 'must be a whole number', 'must be in 1–3', undefined]);
});

test('environment variables as rows: blank rows not sent, the API\'s limits at their row, a refusal at the row it came from', () => {
  const rows = [{ key: 'A', value: '1' }, { key: '', value: '' }, { key: 'B', value: ' x=y' }];
  assert.deepEqual(envPairs(rows), { envs: [{ key: 'A', value: '1' }, { key: 'B', value: ' x=y' }], rowOf: [0, 2] });
  assert.deepEqual(checkEnvRows(rows), {});
  assert.deepEqual(checkEnvRows([{ key: 'K'.repeat(512), value: '' }, { key: '', value: '' }, { key: 'V', value: 'v'.repeat(4096) }]),
    { 'envs.0.key': 'at most 511 characters, got 512', 'envs.2.value': 'at most 4095 characters, got 4096' });
  assert.deepEqual(checkEnvRows([{ key: 'K'.repeat(511), value: 'v'.repeat(4095) }]), {}, 'the limits themselves pass');
  assert.deepEqual(checkEnvRows(Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: '' }))), { envs: 'at most 100 variables, got 101' });
  assert.deepEqual(['envs[1].key', 'env[1].value', 'envs[0]', 'envs', 'envs[7].key', 'name'].map((f) => envControlOf(f, [0, 2])),
    ['envs.2.key', 'envs.2.value', 'envs.0.key', 'envs', 'envs', undefined]);
});

test('the endpoint form\'s checks: each at its field, by the operator\'s ranges; a form that passes becomes the create body', () => {
  const form = { ...BLANK, image: 'ghcr.io/acme/api:1', name: '  web  ', envs: [{ key: 'MODE', value: 'prod' }] };
  assert.deepEqual(checkEndpointForm(form, LIMITS), {});
  assert.deepEqual(checkEndpointForm({ ...form, image: ' ', port: '2222', gpuNum: '9', minNum: '5', maxNum: '4', healthPath: 'health', envs: [{ key: 'K'.repeat(600), value: '' }], storageId: 'nst_1', mountPath: 'data' }, LIMITS), {
    image: 'required: the image to run, like ghcr.io/acme/api:1', port: '2222–2224 are reserved', gpuNum: 'must be in 1–8',
    maxNum: 'must be at least the minimum (5)', healthPath: 'must start with /', 'envs.0.key': 'at most 511 characters, got 600', mountPath: 'must be an absolute path (start with /)',
  });
  assert.deepEqual(checkEndpointForm({ ...form, policyValue: '4000' }, LIMITS), { policyValue: 'must be in 1–3600' }, 'queue wait: seconds');
  assert.deepEqual(checkEndpointForm({ ...form, policyType: 'concurrency', policyValue: '4000' }, LIMITS), { policyValue: 'must be in 1–1000' }, 'queued requests');
  assert.deepEqual(endpointBody(form, 'prod-1', undefined).body, {
    endpoint: {
      name: 'web', image: { image: 'ghcr.io/acme/api:1' }, ports: [{ port: 8000 }], products: [{ id: 'prod-1' }],
      workerConfig: { gpuNum: 1, minNum: 1, maxNum: 3, maxConcurrent: 1 }, policy: { type: 'queue', value: 4 }, healthy: { path: '/' },
      envs: [{ key: 'MODE', value: 'prod' }],
    },
  });
  const stored = endpointBody({ ...form, command: 'serve --port 8000', storageId: 'nst_1', mountPath: '/models' }, 'prod-1', { storageId: 'nst_1', clusterId: 'cls_a' }).body.endpoint;
  assert.deepEqual([stored.image, stored.volumeMounts, stored.clusterID], [{ image: 'ghcr.io/acme/api:1', command: 'serve --port 8000' },
    [{ type: 'network', id: 'nst_1', mountPath: '/models' }], 'cls_a'], 'a network storage is mounted, in its cluster');
  assert.equal('name' in endpointBody({ ...form, name: ' ' }, 'p', undefined).body.endpoint, false, 'a blank name is left to the API (the app name)');
});

test('an API refusal names the form\'s field it is at', () => {
  assert.deepEqual(
    ['endpoint.workerConfig.minNum', 'endpoint.envs[0].key', 'endpoint.ports[0].port', 'endpoint.products', 'endpoint.image.image', 'endpoint.appName', 'endpoint.image.command',
      'endpoint.volumeMounts[0].mountPath', 'endpoint.volumeMounts[0].id', 'endpoint.clusterID', 'other.name'].map((f) => formFieldOf(f, 'endpoint.', [1])),
    ['minNum', 'envs.1.key', 'port', 'productId', 'image', 'name', 'command', 'mountPath', 'storageId', 'storageId', undefined],
  );
  assert.deepEqual(['policy.value', 'healthy.path', 'env', 'unknown'].map((f) => formFieldOf(f, '')), ['policyValue', 'healthPath', 'envs', undefined]);
});

test('the instance form: a template fills in what it runs, the body carries start command, entrypoint, variables and storage, refusals at their control', () => {
  const t = { Id: 'tpl_1', startCommand: 'serve', entrypoint: '/bin/sh -c', envs: [{ key: 'HF_HOME', value: '/data' }] };
  const chosen = withTemplate({ ...INSTANCE_BLANK, command: 'typed' }, t);
  assert.deepEqual([chosen.templateId, chosen.command, chosen.entrypoint, chosen.envs], ['tpl_1', 'serve', '/bin/sh -c', [{ key: 'HF_HOME', value: '/data' }]]);
  assert.equal(withTemplate(chosen, undefined).command, 'serve', 'back to an image keeps what is typed');
  const form = { ...INSTANCE_BLANK, name: 'web', command: 'python app.py', entrypoint: '/bin/bash -lc', envs: [{ key: '', value: '' }, { key: 'MODE', value: 'prod' }], storageId: 'nst_1', mountPoint: '/data' };
  assert.deepEqual(checkInstanceForm(form), {});
  assert.deepEqual(checkInstanceForm({ ...form, command: 'x'.repeat(2048), mountPoint: 'data' }), { command: 'at most 2047 characters, got 2048', mountPoint: 'must be an absolute path (start with /)' });
  assert.deepEqual(instanceBody(form, { productId: 'prd_1', disk: '60' }), {
    body: {
      name: 'web', productId: 'prd_1', gpuNum: 1, kind: 'gpu', billingMode: 'onDemand', command: 'python app.py', entrypoint: '/bin/bash -lc',
      envs: [{ key: 'MODE', value: 'prod' }], imageUrl: 'nginx:latest', rootfsSize: 60, networkStorages: [{ Id: 'nst_1', mountPoint: '/data' }],
    },
    rowOf: [1],
  });
  const fromTpl = instanceBody({ ...chosen, imageUrl: 'ignored' }, { productId: 'prd_1', disk: '60' }).body;
  assert.deepEqual([fromTpl.templateId, 'imageUrl' in fromTpl, 'rootfsSize' in fromTpl], ['tpl_1', false, false], 'the template\'s image and disk');
  assert.deepEqual(['command', 'entrypoint', 'envs[0].key', 'networkStorages[0].Id', 'networkStorages[0].mountPoint', 'clusterId', 'billingMode'].map((f) => instanceControlOf(f, [1])),
    ['command', 'entrypoint', 'envs.1.key', 'storageId', 'mountPoint', 'storageId', undefined]);
});

test('a table wider than its box shows the sides it hides more on', () => {
  assert.deepEqual(scrollEdges({ scrollLeft: 0, scrollWidth: 390, clientWidth: 390 }), { left: false, right: false }, 'it fits');
  assert.deepEqual(scrollEdges({ scrollLeft: 0, scrollWidth: 900, clientWidth: 366 }), { left: false, right: true });
  assert.deepEqual(scrollEdges({ scrollLeft: 200, scrollWidth: 900, clientWidth: 366 }), { left: true, right: true });
  assert.deepEqual(scrollEdges({ scrollLeft: 534, scrollWidth: 900, clientWidth: 366 }), { left: true, right: false }, 'scrolled to the end');
  assert.deepEqual(scrollEdges({ scrollLeft: 533.5, scrollWidth: 900, clientWidth: 366 }), { left: true, right: false }, 'a fraction of a pixel is not more');
  assert.deepEqual(scrollEdges({ scrollLeft: -200, scrollWidth: 900, clientWidth: 366 }), { left: true, right: true }, 'right to left');
});

test('how to call with a key: the base URLs, and curl and openai SDK snippets naming a model the key may call', () => {
  assert.deepEqual(baseUrls('https://gantry.example'), {
    openai: 'https://gantry.example/openai/v1', anthropic: 'https://gantry.example/anthropic',
    openapi: 'https://gantry.example/openapi/v1', document: 'https://gantry.example/openapi.json',
  });
  const fresh = callSnippets({ origin: 'https://g.example', secret: "sk-it's", mask: '', model: 'gantry/sim-chat-small' });
  assert.equal(fresh.env, "export GANTRY_API_KEY='sk-it'\\''s'", 'the fresh key, quoted for the shell');
  assert.match(fresh.curl, /^curl https:\/\/g\.example\/openai\/v1\/chat\/completions \\\n {2}-H "Authorization: Bearer \$GANTRY_API_KEY"/);
  assert.match(fresh.curl, /'\{"model":"gantry\/sim-chat-small","messages":\[\{"role":"user","content":"Hello!"\}\]\}'$/);
  assert.match(fresh.python, /OpenAI\(base_url="https:\/\/g\.example\/openai\/v1", api_key=os\.environ\["GANTRY_API_KEY"\]\)/);
  assert.match(fresh.python, /model="gantry\/sim-chat-small"/);
  assert.match(fresh.node, /new OpenAI\(\{ baseURL: "https:\/\/g\.example\/openai\/v1", apiKey: process\.env\.GANTRY_API_KEY \}\)/);
  assert.match(fresh.node, /model: "gantry\/sim-chat-small"/);
  const later = callSnippets({ origin: 'https://g.example', mask: 'sk-ab…yz', model: undefined });
  assert.equal(later.env, "export GANTRY_API_KEY='<the key sk-ab…yz: shown once, when it was created>'", 'a placeholder once the key is not shown');
  assert.match(later.curl, /<a model this key may call>/);
});
