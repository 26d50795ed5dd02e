// The baseline: a bare Fastify + undici proxy of the same request, no checks at all.
import Fastify from 'fastify';
import { Pool } from 'undici';
import { answerCpuQueries } from './cpu-report.ts';

const upstream = process.argv[2]!;
const pool = new Pool(upstream, { connections: 128, keepAliveTimeout: 30_000 });
const app = Fastify({ logger: false });
app.post('/v1/chat/completions', async (req, reply) => {
  const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body) });
  reply.code(res.statusCode).header('content-type', 'application/json');
  return res.body.text();
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(JSON.stringify({ url }) + '\n');
process.stdin.on('close', () => process.exit(0));
answerCpuQueries();
process.stdin.resume();
setTimeout(() => process.exit(0), 600_000).unref();
