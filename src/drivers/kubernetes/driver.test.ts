// The shared contract against a real cluster. Runs only when KUBECONFIG is set, e.g.:
//   kind create cluster && kubectl create namespace gantry-test
//   KUBECONFIG=~/.kube/config GANTRY_KUBE_NAMESPACE=gantry-test node --test src/drivers/kubernetes/driver.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { systemClock } from '../../lib/clock.ts';
import { baseSpec, driverContract } from '../contract.ts';
import type { WorkloadSpec } from '../types.ts';
import { KubernetesDriver } from './driver.ts';
import { kubeconfigSkip } from '../../../test/helpers/kube-skip.ts';

const kubeconfig = process.env.KUBECONFIG;
const namespace = process.env.GANTRY_KUBE_NAMESPACE ?? 'gantry-test';
const skip = kubeconfigSkip(kubeconfig);

driverContract('kubernetes', async () => ({
  driver: KubernetesDriver.fromKubeconfig(kubeconfig, namespace, systemClock),
  pass: (ms) => new Promise((r) => setTimeout(r, ms)),
  spec: (id) => baseSpec(id),
  patienceMs: 180_000,
  maxCallMs: 5_000,
}), { skip });

// A serverless worker on the same cluster (not run in this repository's CI, which has no
// cluster): busybox's httpd answers the readiness probe, so the pod must become Ready (the
// kubelet accepted and ran the probe as sent), address() must give `podIP:8080`, and delete
// must leave nothing behind. The address is checked for its shape only: from outside the
// cluster (kind on a laptop) pod IPs are usually not reachable.
test('kubernetes worker: readiness probe passes, address is podIP:port, delete cleans up', { skip }, async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig!);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const driver = new KubernetesDriver(core, namespace);
  const id = `wk-contract${Math.random().toString(36).slice(2, 10)}`;
  const spec: WorkloadSpec = {
    ...baseSpec(id), command: 'mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www',
    worker: { endpointId: 'ep-contract', health: { path: '/index.html', initialDelay: 1, period: 1, timeout: 1, successThreshold: 1, failureThreshold: 3 } },
  };
  try {
    await driver.create(spec);
    let ready = false;
    for (let waited = 0; !ready; waited += 1000) {
      assert.ok(waited < 180_000, 'the worker never became Ready');
      await new Promise((r) => setTimeout(r, 1000));
      const pod = await core.readNamespacedPod({ name: id, namespace });
      ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    }
    assert.equal((await driver.describe(id)).phase, 'running');
    assert.match((await driver.address(id)) ?? '', /^(\d+\.\d+\.\d+\.\d+|\[[0-9a-f:]+\]):8080$/);
  } finally {
    await driver.delete(id);
  }
  for (let waited = 0; (await driver.describe(id)).phase !== 'absent'; waited += 1000) {
    assert.ok(waited < 180_000, 'the worker was never gone');
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.equal(await driver.address(id), undefined);
});
