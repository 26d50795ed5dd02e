// Schemas shared by the GPU compute routes. Types, required fields and the bounds of what the
// store keeps (an int4 column): every length and rule is checked by the domain, so each 400
// names the field and rule the same way. The limits are stated in descriptions, for the
// OpenAPI document.
import { Type } from 'typebox';
import { Int32 } from '../../schemas.ts';
import { MAX_STORAGE_GB } from '../../../domain/compute/network-storage.ts';

export const GPU_BASE = '/gpu-instance/openapi/v1';

export const PortsEntry = Type.Object({
  type: Type.String({ description: 'http or tcp' }),
  ports: Type.Array(Int32(), { description: '1-65535 except 2222, 2223, 2224' }),
});
export const EnvPair = Type.Object({ key: Type.String({ description: '0-511 characters' }), value: Type.String({ description: '0-4095 characters' }) });
export const Envs = Type.Array(EnvPair, { description: 'at most 100 pairs' });
/** `env`, an alias of `envs` that a vendor client sends (compat.md) */
export const EnvAlias = Type.Array(EnvPair, { description: 'alias of envs' });

export const TemplateBody = Type.Object({
  name: Type.String({ description: '1-255 characters' }),
  readme: Type.Optional(Type.String({ description: 'Markdown, 0-102400 characters' })),
  type: Type.String({ description: 'instance' }),
  channel: Type.String({ description: 'private (official and community templates are the operator\'s)' }),
  image: Type.String({ description: '1-500 characters' }),
  imageAuth: Type.Optional(Type.String({ description: 'registry credential id, 0-255 characters' })),
  startCommand: Type.Optional(Type.String({ description: '0-2047 characters' })),
  entrypoint: Type.Optional(Type.String({ description: '0-2047 characters' })),
  rootfsSize: Int32({ exclusiveMinimum: 0, description: 'GB' }),
  ports: Type.Optional(Type.Array(PortsEntry, { description: 'at most 10 exposed ports in total' })),
  envs: Type.Optional(Envs),
  env: Type.Optional(EnvAlias),
  minCudaVersion: Type.Optional(Type.String({ description: '0-255 characters' })),
});

export const TemplateView = Type.Object({
  Id: Type.String(), name: Type.String(), readme: Type.String(), type: Type.String(), channel: Type.String(),
  image: Type.String(), imageAuth: Type.String(), startCommand: Type.String(), entrypoint: Type.String(),
  rootfsSize: Type.Integer(), ports: Type.Array(PortsEntry), envs: Type.Array(EnvPair),
  tools: Type.Array(Type.Object({ name: Type.String(), describe: Type.String(), port: Type.Integer(), type: Type.String() })),
  createdAt: Type.String(),
  recommendCards: Type.Array(Type.Object({ gpuSpecId: Type.String(), cardNum: Type.String() })),
  minCudaVersion: Type.String(),
});

export const InstanceView = Type.Object({
  id: Type.String(), name: Type.String(), clusterId: Type.String(), clusterName: Type.String(), status: Type.String(),
  imageUrl: Type.String(), imageAuthId: Type.String(), command: Type.String(), entrypoint: Type.String(),
  cpuNum: Type.String(), memory: Type.String(), gpuNum: Type.String(),
  portMappings: Type.Array(Type.Object({
    port: Type.Integer(), type: Type.String(),
    endpoint: Type.String({ description: 'host:port where the port answers while the instance runs (the driver\'s); "" otherwise' }),
  })),
  productId: Type.String(), productName: Type.String(), rootfsSize: Type.Integer(),
  volumeMounts: Type.Array(Type.Object({ type: Type.String(), size: Type.String(), id: Type.String(), mountPath: Type.String() })),
  statusError: Type.Object({ state: Type.String(), message: Type.String() }),
  envs: Type.Array(EnvPair), kind: Type.String(), billingMode: Type.String(), endTime: Type.String(),
  spotStatus: Type.String(), spotReclaimTime: Type.String(), templateId: Type.String(), createdAt: Type.String(),
});

export const InstanceIdBody = Type.Object({ instanceId: Type.String({ minLength: 1 }) });

/** A network storage size in GB (an integer, or a string of digits on update). */
export const StorageGb = Int32({ minimum: 1, maximum: MAX_STORAGE_GB, description: 'GB' });
