// The closed sets of serverless endpoints (README.md: endpoint states, worker states).

export const ENDPOINT_STATES = ['initializing', 'serving', 'stopped', 'failed', 'terminating'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

export const WORKER_STATES = ['pending', 'creating', 'pulling', 'starting', 'running', 'stopping', 'stopped', 'failed', 'terminating', 'exited'] as const;
export type WorkerState = (typeof WORKER_STATES)[number];

/** Worker states after which a worker writes no more log lines. */
export const FINAL_WORKER_STATES = ['stopped', 'failed', 'exited'] as const satisfies readonly WorkerState[];

/** States in which an endpoint takes an update (a terminating one is on its way out). */
export const UPDATABLE_STATES = ['initializing', 'serving', 'stopped', 'failed'] as const satisfies readonly EndpointState[];

/** `queue`: scale by how long requests wait (seconds); `concurrency`: by how many wait. */
export const POLICY_TYPES = ['queue', 'concurrency'] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

export const VOLUME_TYPES = ['local', 'network'] as const;
export type VolumeType = (typeof VOLUME_TYPES)[number];
