// The compute drivers: one registration each (its kind, how its settings are read, a factory),
// in the driver's own module. A new driver adds its folder and one line to DRIVERS; the
// allowed values of GANTRY_COMPUTE_DRIVER, the settings read and the driver built follow.
import type { SettingReaders } from '../lib/settings.ts';
import type { ComputeDriver, DriverDeps, DriverRegistration } from './types.ts';
import { simDriver } from './sim/index.ts';
import { kubernetesDriver } from './kubernetes/index.ts';
import { dockerDriver } from './docker/index.ts';

/** Every compute driver; the first is the default. */
export const DRIVERS = [simDriver, kubernetesDriver, dockerDriver] as const;

type Registered = (typeof DRIVERS)[number];
export type DriverKind = Registered['kind'];
export const DRIVER_KINDS: readonly DriverKind[] = DRIVERS.map((d) => d.kind);

/** The driver a configuration chose, with its settings (Config.computeDriver). */
export type DriverChoice = Registered extends infer R ? (R extends DriverRegistration<infer K, infer S> ? { kind: K; settings: S } : never) : never;

function registration(kind: DriverKind): DriverRegistration<DriverKind> {
  return DRIVERS.find((d) => d.kind === kind)! as DriverRegistration<DriverKind>;
}

/** GANTRY_COMPUTE_DRIVER and the chosen driver's settings, through loadConfig's readers. */
export function readDriverChoice(read: SettingReaders): DriverChoice {
  const kind = read.oneOf('GANTRY_COMPUTE_DRIVER', DRIVER_KINDS, DRIVERS[0].kind);
  return { kind, settings: registration(kind).settings(read) } as DriverChoice;
}

/** The driver configuration chose. */
export function createDriver(choice: DriverChoice, deps: DriverDeps): Promise<ComputeDriver> {
  return registration(choice.kind).create(choice.settings, deps);
}
