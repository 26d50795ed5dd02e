// POST /v3/async/txt2speech (compat.md): `{request: {voice_id, language, texts[], volume,
// speed}, extra: {response_audio_type, webhook}}` → {task_id}; the result has a WAV per text.
import { Type } from 'typebox';
import { SPEECH_LIMITS, type Txt2SpeechRequest } from '../../../domain/media/txt2speech.ts';
import { createTxt2SpeechTask, type TaskExtra as Extra } from '../../../domain/media/tasks.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { TaskCreated, TaskExtra } from './schemas.ts';
import type { Media } from '../../../domain/media/context.ts';

const L = SPEECH_LIMITS;

export default function txt2speech(app: App, s: { media: Media }): void {
  app.post('/v3/async/txt2speech', {
    config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
    schema: {
      tags: ['media'], summary: 'Text to speech (async): a task whose result has a WAV per text', security: KeyBearer,
      body: Type.Object({
        extra: TaskExtra('audio'),
        request: Type.Object({
          voice_id: Type.String({ minLength: 1, maxLength: L.maxVoiceId }),
          language: Type.Optional(Type.String({ maxLength: 35, description: 'a language tag, default en-US' })),
          texts: Type.Array(Type.String({ minLength: 1, maxLength: L.maxChars }), { minItems: 1, maxItems: L.maxTexts }),
          volume: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
          speed: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2 })),
        }),
      }),
      response: { 200: TaskCreated, ...errors(400, 401, 403) },
    },
  }, async (req) => createTxt2SpeechTask(s.media.tasks, principalOf(req), req.body as { request: Txt2SpeechRequest; extra?: Extra }));
}
