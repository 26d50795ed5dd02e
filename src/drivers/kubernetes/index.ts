// The kubernetes driver's registration (drivers/index.ts). The client (@kubernetes/client-node,
// large) is imported by the factory, so a process on another driver never loads it.
import { defineDriver } from '../types.ts';

export const kubernetesDriver = defineDriver({
  kind: 'kubernetes',
  settings: (read) => ({
    /** KUBECONFIG: the kubeconfig file; unset: the in-cluster service account */
    kubeconfigPath: read.optionalText('KUBECONFIG'),
    /** GANTRY_KUBE_NAMESPACE: where instance and worker pods are created */
    namespace: read.text('GANTRY_KUBE_NAMESPACE', 'gantry'),
  }),
  create: async (settings, { clock }) => {
    const { KubernetesDriver } = await import('./driver.ts');
    return KubernetesDriver.fromKubeconfig(settings.kubeconfigPath, settings.namespace, clock);
  },
});
