// Whether the tests against a real cluster run, and why not: KUBECONFIG unset, or naming a
// file that is not there (those tests failed with an ENOENT stack trace then; issue 45).
import { existsSync } from 'node:fs';

export function kubeconfigSkip(kubeconfig: string | undefined): false | string {
  if (!kubeconfig) return 'set KUBECONFIG (and GANTRY_KUBE_NAMESPACE) to run against a real cluster';
  if (!existsSync(kubeconfig)) return `KUBECONFIG names ${kubeconfig}, which does not exist: point it at a cluster's kubeconfig to run against it`;
  return false;
}
