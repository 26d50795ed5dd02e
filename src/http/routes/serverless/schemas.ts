// Schemas of the serverless endpoint routes (compat.md, "Serverless endpoints"). Types,
// required fields and int4 bounds here; every range (the operator's limits) and rule is
// judged by domain/serverless/spec.ts, so each 400 names the field and its range the same way.
import { Type } from 'typebox';
import { INT32_MAX } from '../../schemas.ts';
import { LogQueryFields } from '../../log-answer.ts';
import { EnvAlias, Envs } from '../compute/schemas.ts';
import { POLICY_TYPES, VOLUME_TYPES } from '../../../domain/serverless/codes.ts';

/** An integer, or a string of digits (what get and list answer for some numbers, sent back). */
export const IntLike = (description: string) => Type.Unsafe<number | string>({
  type: ['integer', 'string'], format: 'int64', minimum: -INT32_MAX - 1, maximum: INT32_MAX, description: `${description}; an integer (a string of digits is accepted)`,
});

const workerConfigFields = {
  minNum: IntLike('fewest workers, within minWorkerNum-maxWorkerNum of /endpoint/limit (0: scale to zero)'),
  maxNum: IntLike('most workers, at least minNum and within the limits'),
  freeTimeout: IntLike('seconds a worker stays idle before it is released (minFreeTimeout-maxFreeTimeout)'),
  maxConcurrent: IntLike('requests one worker takes at once (minConcurrencyNum-maxConcurrencyNum)'),
  gpuNum: IntLike('GPUs per worker (minGPUNum-maxGPUNum)'),
  requestTimeout: IntLike('seconds a request may wait for a worker (minRequestTimeout-maxRequestTimeout)'),
};
const cudaVersion = Type.String({ description: '"" (any) or one of cudaVersionList of /endpoint/limit' });

/** create: every field optional (defaults: min 1, max 3, freeTimeout 60, maxConcurrent 1, gpuNum 1, requestTimeout 120) */
export const WorkerConfigCreate = Type.Object({
  minNum: Type.Optional(workerConfigFields.minNum), maxNum: Type.Optional(workerConfigFields.maxNum),
  freeTimeout: Type.Optional(workerConfigFields.freeTimeout), maxConcurrent: Type.Optional(workerConfigFields.maxConcurrent),
  gpuNum: Type.Optional(workerConfigFields.gpuNum), requestTimeout: Type.Optional(workerConfigFields.requestTimeout),
  cudaVersion: Type.Optional(cudaVersion),
});
/** update: the six numbers are required (interface.md) */
export const WorkerConfigUpdate = Type.Object({ ...workerConfigFields, cudaVersion: Type.Optional(cudaVersion) });

export const Ports = Type.Array(Type.Object({ port: IntLike('1-65535 except 2222, 2223, 2224') }), { description: 'exactly one HTTP port' });
export const Policy = Type.Object({
  type: Type.String({ enum: [...POLICY_TYPES], description: 'queue: scale by queue waiting time; concurrency: by queued requests' }),
  value: IntLike('seconds for queue (minQueueWaitTime-maxQueueWaitTime), queued requests for concurrency (minRequestNum-maxRequestNum)'),
});
export const Image = Type.Object({
  image: Type.String({ description: 'image reference, 1-511 characters (on update 0-511: empty keeps the image)' }),
  authId: Type.Optional(Type.String({ description: 'registry credential id of the team, 0-255 characters' })),
  command: Type.Optional(Type.String({ description: '0-2047 characters' })),
});
export const Products = Type.Array(Type.Object({ id: Type.String({ description: 'GPU product id' }) }), { description: 'exactly one GPU product' });
export const VolumeMounts = Type.Array(Type.Object({
  type: Type.String({ enum: [...VOLUME_TYPES] }),
  id: Type.Optional(Type.String({ description: 'network storage id (network)' })),
  size: Type.Optional(IntLike('GB, local only: within the local volume limits on create, 30 (or the current size) on update')),
  mountPath: Type.String({ description: 'absolute path, 1-255 characters' }),
}), { description: 'at most one local volume and 30 network storages' });
export const Healthy = Type.Object({
  path: Type.String({ description: 'health check path, answered 200 by a healthy worker (default /)' }),
  initialDelay: Type.Optional(IntLike('seconds before the first check, 0-3600 (default 0)')),
  period: Type.Optional(IntLike('seconds between checks, 1-3600 (default 10)')),
  timeout: Type.Optional(IntLike('seconds a check may take, 1-3600 (default 5)')),
  successThreshold: Type.Optional(IntLike('consecutive successes to count as recovered, 1-100 (default 1)')),
  failureThreshold: Type.Optional(IntLike('consecutive failures to count as failed, 1-100 (default 3)')),
});
const common = {
  name: Type.Optional(Type.String({ description: '0-255 characters (default: appName)' })),
  appName: Type.Optional(Type.String({ description: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 46 characters, unique in the team (default: the id)' })),
  clusterID: Type.Optional(Type.String({ description: 'required when a network storage is mounted (its cluster); 0-255 characters' })),
  rootfsSize: Type.Optional(IntLike('GB (minRootfsSize-maxRootfsSize)')),
  volumeMounts: Type.Optional(VolumeMounts),
  envs: Type.Optional(Envs),
  env: Type.Optional(EnvAlias),
  healthy: Type.Optional(Healthy),
};

export const CreateBody = Type.Object({
  endpoint: Type.Object({
    ...common,
    workerConfig: Type.Optional(WorkerConfigCreate),
    ports: Ports,
    policy: Type.Optional(Policy),
    image: Image,
    products: Products,
  }),
});

export const UpdateBody = Type.Object({
  id: Type.String({ minLength: 1, description: 'the endpoint to update' }),
  ...common,
  workerConfig: WorkerConfigUpdate,
  ports: Ports,
  policy: Policy,
  image: Image,
  products: Type.Optional(Products),
});

const StateView = Type.Object({ state: Type.String(), error: Type.String(), message: Type.String() });
const baseView = {
  id: Type.String(), name: Type.String(), appName: Type.String(),
  state: StateView,
  url: Type.String(),
  workerConfig: Type.Object({
    minNum: Type.Integer(), maxNum: Type.Integer(), freeTimeout: Type.String(), maxConcurrent: Type.String(), gpuNum: Type.Integer(),
    requestTimeout: Type.Integer(), cudaVersion: Type.String(),
  }),
  policy: Type.Object({ type: Type.String(), value: Type.String() }),
  image: Type.Object({ image: Type.String(), authId: Type.String(), command: Type.String() }),
  rootfsSize: Type.Integer(),
  volumeMounts: Type.Array(Type.Object({ type: Type.String(), id: Type.String(), size: Type.Optional(Type.Integer({ description: 'local only' })), mountPath: Type.String() })),
  envs: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  workers: Type.Array(Type.Object({
    id: Type.String(), state: StateView, log: Type.String({ description: 'URL of the worker\'s log' }),
    metrics: Type.String({ description: 'always "": no per-worker metrics are collected' }), healthy: Type.Boolean(),
  })),
  products: Type.Array(Type.Object({ id: Type.String() })),
  healthy: Type.Object({
    path: Type.String(), initialDelay: Type.Integer(), period: Type.Integer(), timeout: Type.Integer(), successThreshold: Type.Integer(), failureThreshold: Type.Integer(),
  }),
  clusterID: Type.Optional(Type.String({ description: 'when a network storage is mounted' })),
  log: Type.String({ description: 'URL of the endpoint\'s log' }),
};
/** `GET /endpoint`: ports[].port an integer */
export const EndpointView = Type.Object({ ...baseView, ports: Type.Array(Type.Object({ port: Type.Integer() })) });
/** `GET /endpoints`: ports[].port a string */
export const EndpointListView = Type.Object({ ...baseView, ports: Type.Array(Type.Object({ port: Type.String() })) });

export const LimitsView = Type.Object({
  minRootfsSize: Type.Integer(), maxRootfsSize: Type.Integer(), freeRootfsSize: Type.Integer(),
  minLocalVolumeSize: Type.Integer(), maxLocalVolumeSize: Type.Integer(), freeLocalVolumeSize: Type.Integer(),
  minWorkerNum: Type.Integer(), maxWorkerNum: Type.Integer(),
  minFreeTimeout: Type.Integer(), maxFreeTimeout: Type.Integer(),
  minConcurrencyNum: Type.Integer(), maxConcurrencyNum: Type.Integer(),
  minQueueWaitTime: Type.Integer(), maxQueueWaitTime: Type.Integer(),
  minRequestNum: Type.Integer(), maxRequestNum: Type.Integer(),
  minGPUNum: Type.Integer(), maxGPUNum: Type.Integer(),
  minRequestTimeout: Type.Integer(), maxRequestTimeout: Type.Integer(),
  cudaVersionList: Type.Array(Type.String()),
});

/** Query of the log routes. */
export const LogQuery = Type.Object({ id: Type.String({ minLength: 1 }), ...LogQueryFields });
