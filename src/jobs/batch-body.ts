// Whether a batch line's body is a request its endpoint would take: the same schema the
// interactive route validates with (gateway/openai/schemas.ts) and the gateway's rules
// that span fields (gateway/request-rules.ts), so a line refused here would have been
// refused as an interactive call too, and a line accepted here is judged like one.
import { Compile } from 'typebox/compile';
import type { CheckBody } from '../domain/batches/validate.ts';
import { ChatBody, CompletionBody } from '../gateway/openai/schemas.ts';
import { checkRequestRules } from '../gateway/request-rules.ts';
import { AppError } from '../lib/errors.ts';
import type { Endpoint, ModelBody } from '../gateway/upstreams/upstream.ts';

const SCHEMAS = {
  '/v1/chat/completions': { endpoint: 'chat.completions', check: Compile(ChatBody) },
  '/v1/completions': { endpoint: 'completions', check: Compile(CompletionBody) },
} as const satisfies Record<string, { endpoint: Endpoint; check: unknown }>;

/** The pipeline's name of a batch endpoint (`/v1/chat/completions` → `chat.completions`). */
export function pipelineEndpoint(batchEndpoint: string): Endpoint {
  const s = SCHEMAS[batchEndpoint as keyof typeof SCHEMAS];
  if (!s) throw new Error(`not a batch endpoint: ${batchEndpoint}`);
  return s.endpoint;
}

export const checkBatchBody: CheckBody = (batchEndpoint, body) => {
  const s = SCHEMAS[batchEndpoint as keyof typeof SCHEMAS];
  if (!s) return { param: 'url', message: `endpoint ${batchEndpoint} does not take batches` };
  if (!s.check.Check(body)) {
    const first = [...s.check.Errors(body)][0];
    const path = first?.instancePath ? first.instancePath.split('/').filter(Boolean).join('.') : '';
    return { param: path ? `body.${path}` : 'body', message: `body${path ? `.${path}` : ''}: ${first?.message ?? 'does not match the endpoint'}` };
  }
  try {
    checkRequestRules(s.endpoint, body as ModelBody);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { param: typeof e.metadata.field === 'string' ? `body.${e.metadata.field}` : 'body', message: e.message };
  }
  return undefined;
};
