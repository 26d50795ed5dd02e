import { Type } from 'typebox';

export const ModelRef = Type.Object({
  type: Type.String({ enum: ['llm', 'multimodal'] }),
  id: Type.String({ minLength: 1, maxLength: 200 }),
});

export const PolicyObject = Type.Object({
  schemaVersion: Type.Integer(),
  productScope: Type.String(),
  mode: Type.String({ enum: ['all_enabled', 'selected'] }),
  allowedModels: Type.Array(ModelRef),
  excludedModels: Type.Array(ModelRef),
  source: Type.Object({ type: Type.String() }),
});

export const PolicyResponse = Type.Object({
  stringId: Type.String(),
  policy: PolicyObject,
  policyStatus: Type.String({ enum: ['active', 'no_available_models'] }),
  allowedModelCount: Type.Integer(),
  excludedModelCount: Type.Integer(),
  updatedAt: Type.Integer({ description: 'Unix seconds; 0 when never configured' }),
  updatedBy: Type.String(),
});

export const KeyParams = Type.Object({ stringId: Type.String({ minLength: 1, maxLength: 64 }) });
export const POLICY_URL = '/openapi/v2/user/key/:stringId/model-access-policy';
