import { Type } from 'typebox';
import { Int32 } from '../../schemas.ts';

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
  effectivePolicy: Type.Optional(Type.Object(PolicyObject.properties, {
    description: 'Gantry: present when the key\'s member has a model policy; the key\'s policy narrowed by it (what the key may call)',
  })),
});

export const MemberPolicyResponse = Type.Object({
  memberId: Type.String(),
  policy: PolicyObject,
  policyStatus: Type.String({ enum: ['active', 'no_available_models'] }),
  allowedModelCount: Type.Integer(),
  excludedModelCount: Type.Integer(),
  updatedAt: Type.Integer({ description: 'Unix seconds; 0 when never configured' }),
  updatedBy: Type.String(),
  callableModels: Type.Optional(Type.Array(Type.String(), {
    description: 'The models the member\'s keys may call at most (the team\'s enabled, available models the policy allows); left out for a Developer reading its own',
  })),
});

/** The body of both PUTs: the policy object itself (interface: Set API key model access policy). */
export const PolicyWrite = Type.Object({
  schemaVersion: Type.Optional(Int32({ description: 'int32; currently 1' })),
  productScope: Type.Optional(Type.String()),
  mode: Type.String({ enum: ['all_enabled', 'selected'] }),
  allowedModels: Type.Optional(Type.Array(ModelRef)),
  excludedModels: Type.Optional(Type.Array(ModelRef)),
  source: Type.Optional(Type.Unknown({ description: 'Ignored on write; managed by the server' })),
});

export const KeyParams = Type.Object({ stringId: Type.String({ minLength: 1, maxLength: 64 }) });
export const POLICY_URL = '/openapi/v2/user/key/:stringId/model-access-policy';
export const MemberParams = Type.Object({ memberId: Type.String({ minLength: 1, maxLength: 64 }) });
export const MEMBER_POLICY_URL = '/openapi/v2/user/member/:memberId/model-access-policy';
