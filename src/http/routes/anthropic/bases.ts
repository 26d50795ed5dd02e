// The base path of the Anthropic-compatible routes; their request and answer shapes are the
// gateway's (gateway/anthropic/schemas.ts).

export const ANTHROPIC_BASE = '/anthropic/v1';
