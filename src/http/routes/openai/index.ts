// The routes of openai/: one operation per file, registered in this order.
import type { RouteRegistrar } from '../../types.ts';
import listModels from './list-models.ts';
import getModel from './get-model.ts';
import chatCompletions from './chat-completions.ts';
import completions from './completions.ts';
import embeddings from './embeddings.ts';
import rerank from './rerank.ts';
import createResponse from './create-response.ts';
import getResponse from './get-response.ts';
import deleteResponse from './delete-response.ts';

export default [
  listModels,
  getModel,
  chatCompletions,
  completions,
  embeddings,
  rerank,
  createResponse,
  getResponse,
  deleteResponse,
] satisfies RouteRegistrar[];
