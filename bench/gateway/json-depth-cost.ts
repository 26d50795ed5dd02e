// What the nesting limit (src/lib/json-depth.ts) adds to parsing a body on the main thread:
// Fastify's JSON parser (secure-json-parse, as plugins/validation.ts runs it) alone, then the
// depth scan and the parser, per body. Runs alternate and the median of 7 is printed.
//   node bench/gateway/json-depth-cost.ts
import sjson from 'secure-json-parse';
import { jsonTooDeep } from '../../src/lib/json-depth.ts';

const msg = (role: string, content: string) => ({ role, content });
const bodies: [string, string][] = [
  // the body every gateway bench sends (run.ts, threads.ts, replicas.ts)
  ['bench chat', JSON.stringify({ model: 'bench/mock', messages: [msg('user', 'Say hello in one short sentence.')], max_tokens: 16 })],
  ['7-turn chat', JSON.stringify({
    model: 'bench/mock', max_tokens: 256, temperature: 0.7, stream: true, stream_options: { include_usage: true },
    messages: [msg('system', 'You are a helpful assistant for a cloud provider. Answer briefly and never invent prices. '.repeat(3)),
      ...Array.from({ length: 6 }, (_, i) => msg(i % 2 ? 'assistant' : 'user', `Turn ${i}: how do I attach a "network volume" to an instance? `.repeat(2)))],
  })],
  ['chat + 2 tools', JSON.stringify({
    model: 'bench/mock', max_tokens: 128, tool_choice: 'auto', messages: [msg('user', 'What is the weather in Paris and in Berlin?')],
    tools: [
      { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'], additionalProperties: false } } },
      { type: 'function', function: { name: 'search', description: 'Search the docs', parameters: { type: 'object', properties: { query: { type: 'string' }, filters: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } } }, required: ['query'] } } },
    ],
  })],
  ['64-message agent loop', JSON.stringify({
    model: 'bench/mock', messages: Array.from({ length: 64 }, (_, i) => (i % 2
      ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'search', arguments: JSON.stringify({ query: `step ${i}` }) } }] }
      : { role: 'tool', tool_call_id: `call_${i - 1}`, content: `result ${i}: ${'text '.repeat(20)}` })),
  })],
  ['900 KB prompt', JSON.stringify({ model: 'bench/mock', messages: [msg('user', 'lorem ipsum dolor sit amet, "quoted" \\ '.repeat(23_000))] })],
];

const parse = (text: string) => sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
let sink = 0;

/** ns per call of `f`, over about `ms` milliseconds. */
function ns(f: () => void, ms: number): number {
  let n = 0;
  let batch = 1;
  const start = process.hrtime.bigint();
  let now = start;
  while (Number(now - start) < ms * 1e6) {
    for (let i = 0; i < batch; i++) f();
    n += batch;
    batch = Math.min(batch * 2, 1 << 16);
    now = process.hrtime.bigint();
  }
  return Number(now - start) / n;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
console.log('| body | bytes | parse (before) ns | scan ns | scan + parse (after) ns | added |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, text] of bodies) {
  const ms = text.length > 100_000 ? 300 : 100;
  const before = () => { sink += parse(text) ? 1 : 0; };
  const scan = () => { sink += jsonTooDeep(text) ? 1 : 0; };
  const after = () => { sink += jsonTooDeep(text) ? 1 : parse(text) ? 2 : 0; };
  for (const f of [before, scan, after]) ns(f, ms); // warm up
  const runs = { before: [] as number[], scan: [] as number[], after: [] as number[] };
  for (let i = 0; i < 7; i++) {
    runs.before.push(ns(before, ms));
    runs.scan.push(ns(scan, ms));
    runs.after.push(ns(after, ms));
  }
  const [b, s, a] = [median(runs.before), median(runs.scan), median(runs.after)];
  console.log(`| ${name} | ${text.length} | ${b.toFixed(0)} | ${s.toFixed(0)} | ${a.toFixed(0)} | ${((s / b) * 100).toFixed(1)} % |`);
}
if (sink === -1) console.log(sink);
