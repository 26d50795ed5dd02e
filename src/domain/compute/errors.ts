// The reasons compute refuses with, in the GPU family's words (compat.md), and their
// constructors. Other route families (the operator API) tell them in their own.
import { AppError, invalid, type ErrorMetadata, type Reason } from '../../lib/errors.ts';

export const COMPUTE_REASONS = [
  'VALIDATOR_PARAM', 'RESOURCE_NOT_FOUND', 'TEMPLATE_NOT_FOUND', 'NETWORK_STORAGE_NOT_FOUND', 'INSUFFICIENT_RESOURCE', 'INVALID_STATE',
  'CONFLICT',
] as const satisfies readonly Reason[];

/** A field broke a rule. */
export const bad = (field: string, rule: string): AppError => invalid(field, rule, 'VALIDATOR_PARAM');

/** Something of the team's (or the catalogue's) that does not exist; another team's reads the same. */
export function computeNotFound(resource: 'instance' | 'cluster' | 'product' | 'registryAuth' | 'template' | 'networkStorage', id: string, label: string = resource): AppError {
  const reason: Reason = resource === 'template' ? 'TEMPLATE_NOT_FOUND' : resource === 'networkStorage' ? 'NETWORK_STORAGE_NOT_FOUND' : 'RESOURCE_NOT_FOUND';
  return new AppError(reason, `${label} ${id} not found`, { resource, id });
}

/** Not enough GPUs (or the product is off sale). */
export function insufficient(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('INSUFFICIENT_RESOURCE', message, metadata);
}

/** The instance's state does not allow what was asked. */
export function wrongState(message: string, metadata: ErrorMetadata): AppError {
  return new AppError('INVALID_STATE', message, metadata);
}

/** The operator set by hand the inventory of the cluster whose GPUs the driver reads (gpu-inventory.ts). */
export function inventoryFollowsDriver(clusterId: string): AppError {
  return new AppError('CONFLICT',
    `the inventory of cluster ${clusterId} follows the GPUs the compute driver reads (docker: nvidia-smi or GANTRY_DOCKER_GPUS, for GANTRY_DOCKER_CLUSTER) and is not set by hand; a product's GPUs there are those its gpuModel matches (a CPU product, gpuModel empty or CPU, is set by hand)`,
    { field: 'clusterId', clusterId, rule: 'the inventory of the driver\'s cluster follows its GPUs' });
}
