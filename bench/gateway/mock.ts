// The minimal OpenAI-compatible upstream every variant talks to: a fixed chat completion
// with usage, as fast as node:http answers. Prints its URL; exits when stdin closes.
import { createServer } from 'node:http';
import { answerCpuQueries } from './cpu-report.ts';

const body = JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'mock',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! This is a short fixed answer from the mock upstream.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 },
});
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }) + '\n');
});
process.stdin.on('close', () => process.exit(0));
answerCpuQueries();
process.stdin.resume();
setTimeout(() => process.exit(0), 600_000).unref();
