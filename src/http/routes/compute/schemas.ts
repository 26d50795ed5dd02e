// Schemas shared by the GPU compute routes. Types and required fields only: every length
// and range limit is checked by the domain, so each 400 names the field and rule the same way.
import { Type } from 'typebox';

export const GPU_BASE = '/gpu-instance/openapi/v1';

export const PortsEntry = Type.Object({ type: Type.String(), ports: Type.Array(Type.Integer()) });
export const EnvPair = Type.Object({ key: Type.String(), value: Type.String() });

export const TemplateBody = Type.Object({
  name: Type.String(),
  readme: Type.Optional(Type.String()),
  type: Type.String(),
  channel: Type.String(),
  image: Type.String(),
  imageAuth: Type.Optional(Type.String()),
  startCommand: Type.Optional(Type.String()),
  entrypoint: Type.Optional(Type.String()),
  rootfsSize: Type.Integer(),
  ports: Type.Optional(Type.Array(PortsEntry)),
  envs: Type.Optional(Type.Array(EnvPair)),
  minCudaVersion: Type.Optional(Type.String()),
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
  portMappings: Type.Array(Type.Object({ port: Type.Integer(), type: Type.String() })),
  productId: Type.String(), productName: Type.String(), rootfsSize: Type.Integer(),
  volumeMounts: Type.Array(Type.Object({ type: Type.String(), size: Type.String(), id: Type.String(), mountPath: Type.String() })),
  statusError: Type.Object({ state: Type.String(), message: Type.String() }),
  envs: Type.Array(EnvPair), kind: Type.String(), billingMode: Type.String(), endTime: Type.String(),
  spotStatus: Type.String(), spotReclaimTime: Type.String(), templateId: Type.String(), createdAt: Type.String(),
});

export const InstanceIdBody = Type.Object({ instanceId: Type.String({ minLength: 1 }) });
