// Picks the compute driver named by configuration. The kubernetes client is loaded only
// when that driver is chosen.
import type { Clock } from '../lib/clock.ts';
import type { ComputeDriver } from './types.ts';
import { SimDriver } from './sim.ts';

export const DRIVER_KINDS = ['sim', 'kubernetes'] as const;
export type DriverKind = (typeof DRIVER_KINDS)[number];

export interface DriverOptions {
  kind: DriverKind;
  clock: Clock;
  simTimeScale: number;
  kubeconfigPath?: string | undefined;
  kubeNamespace: string;
}

export async function createDriver(o: DriverOptions): Promise<ComputeDriver> {
  if (o.kind === 'kubernetes') {
    const { KubernetesDriver } = await import('./kubernetes/driver.ts');
    return KubernetesDriver.fromKubeconfig(o.kubeconfigPath, o.kubeNamespace, o.clock);
  }
  return new SimDriver(o.clock, { timeScale: o.simTimeScale });
}
