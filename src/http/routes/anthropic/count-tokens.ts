import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { principalOf } from '../../types.ts';
import { chatMessages, type MessagesBody as Body } from '../../../gateway/anthropic/request.ts';
import { simChatPromptTokensAsync } from '../../../gateway/tokens.ts';
import { AnthropicAnswers, AnthropicVersion, CountTokensBody } from '../../../gateway/anthropic/schemas.ts';
import { ANTHROPIC_BASE } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function anthropicCountTokensRoute(app: App, s: { gateway: Gateway }): void {
  app.post(`${ANTHROPIC_BASE}/messages/count_tokens`, {
    config: { family: 'anthropic', auth: { kind: 'key', capability: 'callModels', xApiKey: true }, docResponses: AnthropicAnswers.countTokens },
    schema: {
      tags: ['anthropic'], summary: 'Count the input tokens of a message request (free; nothing is admitted or billed)', security: [{ apiKey: [] }, { anthropicApiKey: [] }],
      headers: AnthropicVersion,
      body: CountTokensBody,
      response: errors(400, 401, 404, 503),
    },
  }, async (req) => {
    const body = req.body as Body;
    await s.gateway.getModel(principalOf(req), body.model); // 404 for a model the key may not use
    // The simulator's count, the one its usage reports as input_tokens (tools are not counted there either).
    return { input_tokens: await simChatPromptTokensAsync(chatMessages(body) as Array<{ content?: unknown }>) };
  });
}
