// The registry: GANTRY_COMPUTE_DRIVER's values are the registered kinds, the chosen driver's
// settings are read through the configuration (its problems reported with the others), and
// the factory builds it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../config.ts';
import { ManualClock } from '../lib/clock.ts';
import { orList } from '../lib/settings.ts';
import { createDriver, DRIVER_KINDS, DRIVERS } from './index.ts';
import { SimDriver } from './sim/driver.ts';
import { kubernetesDriver } from './kubernetes/index.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/tmp');
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

test('each kind is registered once; the first is the default, with its settings', async () => {
  assert.equal(new Set(DRIVER_KINDS).size, DRIVERS.length);
  const config = loadConfig({}, '/tmp');
  assert.deepEqual(config.computeDriver, { kind: DRIVERS[0].kind, settings: { timeScale: 1 } });
  const driver = await createDriver(config.computeDriver, { clock: new ManualClock() });
  assert.ok(driver instanceof SimDriver);
  await driver.close();
});

test('GANTRY_COMPUTE_DRIVER accepts the registered kinds only, and says which', () => {
  assert.deepEqual(problems({ GANTRY_COMPUTE_DRIVER: 'nope' }), [`GANTRY_COMPUTE_DRIVER must be ${orList(DRIVER_KINDS)}, got "nope"`]);
  for (const kind of DRIVER_KINDS) assert.equal(loadConfig({ GANTRY_COMPUTE_DRIVER: kind }, '/tmp').computeDriver.kind, kind);
  assert.equal(loadConfig({ GANTRY_COMPUTE_DRIVER: '' }, '/tmp').computeDriver.kind, DRIVERS[0].kind, 'empty is unset');
});

test('the chosen driver\'s settings are read, and their problems reported with the others', () => {
  const kube = loadConfig({ GANTRY_COMPUTE_DRIVER: kubernetesDriver.kind, KUBECONFIG: '/etc/kube.yaml', GANTRY_KUBE_NAMESPACE: 'gpu' }, '/tmp');
  assert.deepEqual(kube.computeDriver, { kind: kubernetesDriver.kind, settings: { kubeconfigPath: '/etc/kube.yaml', namespace: 'gpu' } });
  assert.deepEqual(loadConfig({ GANTRY_COMPUTE_DRIVER: kubernetesDriver.kind }, '/tmp').computeDriver.settings, { kubeconfigPath: undefined, namespace: 'gantry' });
  assert.deepEqual(loadConfig({ GANTRY_SIM_TIME_SCALE: '100' }, '/tmp').computeDriver.settings, { timeScale: 100 });
  assert.deepEqual(problems({ GANTRY_SIM_TIME_SCALE: '-1', PORT: 'x' }), [
    'PORT must be an integer in [0, 65535], got "x"', 'GANTRY_SIM_TIME_SCALE must be a positive number, got "-1"',
  ]);
});
