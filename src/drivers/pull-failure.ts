// What a tenant is told when an image cannot be pulled: one of a few sentences of Gantry's
// own, chosen from the engine's (or kubelet's) words, which are never passed on. Those words
// carry the registry's answer: Docker quotes a body it cannot parse whole ("error parsing HTTP
// 404 response body: …: \"<html>…\""), Podman its first 50 characters, both the `message` of a
// registry's JSON errors; an image name on an internal host would otherwise read that host's
// pages back to the tenant. The words only pick the sentence.

export const PULL_FAILURE_KINDS = ['refused', 'missing', 'unreachable', 'other'] as const;
export type PullFailureKind = (typeof PULL_FAILURE_KINDS)[number];

const REFUSED = /unauthori[sz]ed|denied|forbidden|authentication required|incorrect username or password|no basic auth credentials|\b40[13]\b/i;
const MISSING = /manifest unknown|name unknown|not found|no such image|does not exist|\b404\b/i;
const UNREACHABLE = /connection refused|no such host|timeout|timed out|unreachable|no route to host|connection reset|dial tcp|lookup |tls|x509|certificate|http response to https client|\bEOF\b/i;

/** Which kind of failure the engine's words say (the first that matches, in this order). */
export function pullFailureKind(words: string): PullFailureKind {
  if (REFUSED.test(words)) return 'refused';
  if (MISSING.test(words)) return 'missing';
  if (UNREACHABLE.test(words)) return 'unreachable';
  return 'other';
}

/** The tenant's sentence for a failed pull of `image` (as Gantry named it), with or without the team's registry credential. */
export function pullFailureMessage(image: string, words: string, withCredential: boolean): string {
  switch (pullFailureKind(words)) {
    case 'refused':
      return withCredential
        ? `the registry refused the team's registry credential for ${image}`
        : `the registry refused ${image} without a credential: a private image needs the team's registry credential (imageAuthId, or an endpoint's authId)`;
    case 'missing':
      return `the registry has no image ${image}`;
    case 'unreachable':
      return `the registry of ${image} could not be reached`;
    default:
      return `the pull of ${image} failed (what the registry answered is not shown)`;
  }
}
