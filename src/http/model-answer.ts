// Sends a model pipeline's answer over HTTP: JSON, or Server-Sent Events in OpenAI's framing
// (`data: <json>\n\n` … `data: [DONE]\n\n`). The pipeline (gateway/gateway.ts) knows
// nothing of this; a client that hangs up aborts the call through its signal.
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Gateway, ModelCall } from '../gateway/gateway.ts';
import { AppError } from '../lib/errors.ts';
import { errorPayload, toAppError } from './plugins/errors.ts';
import { principalOf } from './types.ts';

/** Run a model call for a route and answer it. */
export async function answerModelCall(gateway: Gateway, endpoint: ModelCall['endpoint'], req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const hangUp = new AbortController();
  // From the start, not the first chunk: a client may leave during the time to first token.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) hangUp.abort(new Error('the client closed the connection'));
  });
  const answer = await gateway.run({ endpoint, principal: principalOf(req), body: req.body as Record<string, unknown>, signal: hangUp.signal });
  reply.headers(answer.headers);
  if (answer.kind === 'json') return reply.send(answer.body);
  const it = answer.chunks[Symbol.asyncIterator]();
  const first = await it.next(); // a failure before anything is sent is a proper HTTP error
  const out = new PassThrough();
  reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
  reply.send(out);
  void pump(it, first, out);
  return reply;
}

async function pump(it: AsyncIterator<Record<string, unknown>>, first: IteratorResult<Record<string, unknown>>, out: PassThrough): Promise<void> {
  try {
    for (let r = first; !r.done; r = await it.next()) out.write(`data: ${JSON.stringify(r.value)}\n\n`);
    out.end('data: [DONE]\n\n'); // only after the usage is durable (the iteration settles first)
  } catch (e) {
    // Headers are gone: the failure travels as an event in OpenAI's error shape, and no [DONE].
    const err = e instanceof AppError ? e : toAppError(e, 'llm');
    out.end(`data: ${JSON.stringify({ error: (errorPayload(err, 'llm') as { error: unknown }).error })}\n\n`);
  }
}
