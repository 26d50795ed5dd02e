// The shared contract against a real cluster. Runs only when KUBECONFIG is set, e.g.:
//   kind create cluster && kubectl create namespace gantry-test
//   KUBECONFIG=~/.kube/config GANTRY_KUBE_NAMESPACE=gantry-test node --test src/drivers/kubernetes/driver.test.ts
import { systemClock } from '../../lib/clock.ts';
import { baseSpec, driverContract } from '../contract.ts';
import { KubernetesDriver } from './driver.ts';

const kubeconfig = process.env.KUBECONFIG;
const namespace = process.env.GANTRY_KUBE_NAMESPACE ?? 'gantry-test';

driverContract('kubernetes', async () => ({
  driver: KubernetesDriver.fromKubeconfig(kubeconfig, namespace, systemClock),
  pass: (ms) => new Promise((r) => setTimeout(r, ms)),
  spec: (id) => baseSpec(id),
  patienceMs: 180_000,
  maxCallMs: 5_000,
}), { skip: kubeconfig ? false : 'set KUBECONFIG (and GANTRY_KUBE_NAMESPACE) to run against a real cluster' });
