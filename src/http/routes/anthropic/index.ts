// The routes of anthropic/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import createMessage from './create-message.ts';
import countTokens from './count-tokens.ts';

export default [
  createMessage,
  countTokens,
] satisfies RouteRegistrar[];
