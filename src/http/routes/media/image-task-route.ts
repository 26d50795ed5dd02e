import type { Config } from '../../../config.ts';
// The shape shared by the image routes that take images in their body: a body limit for
// inline images (GANTRY_BODY_LIMIT_LLM_MB, the limit of the routes that carry images),
// the media family, a key that may call models.

export const imageRouteOptions = (s: { config: Config }) => ({
  bodyLimit: s.config.bodyLimits.llm,
  config: { family: 'media' as const, auth: { kind: 'key' as const, capability: 'callModels' as const } },
});
