import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';
import { answerModelCall } from '../../model-answer.ts';
import type { MessagesBody as Body } from '../../../gateway/anthropic/request.ts';
import { anthropicDoor } from './door.ts';
import { AnthropicAnswers, AnthropicVersion, MessagesBody } from '../../../gateway/anthropic/schemas.ts';
import { ANTHROPIC_BASE } from './bases.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

export default function anthropicCreateMessageRoute(app: App, s: { gateway: Gateway }): void {
  app.post(`${ANTHROPIC_BASE}/messages`, {
    config: { family: 'anthropic', auth: { kind: 'key', capability: 'callModels', xApiKey: true }, docResponses: AnthropicAnswers.message },
    schema: {
      tags: ['anthropic'], summary: 'Create a message (Anthropic Messages API; stream or not)', security: [{ apiKey: [] }, { anthropicApiKey: [] }],
      headers: AnthropicVersion,
      body: MessagesBody,
      response: errors(400, 401, 403, 404, 429, 503),
    },
  }, (req, reply) => answerModelCall(s.gateway, 'chat.completions', req, reply, anthropicDoor(req.body as Body)));
}
