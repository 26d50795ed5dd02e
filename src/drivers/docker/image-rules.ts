// The operator's rules for images on a docker engine, as pure functions (image-rules.test.ts):
// which images are the operator's own, run as found and never pulled
// (GANTRY_DOCKER_LOCAL_IMAGES), and which registries on loopback, private or link-local
// addresses the engine may pull from (GANTRY_DOCKER_PRIVATE_REGISTRIES; none by default).
import { isIP } from 'node:net';
import { type ImageRef, parseImageRef } from '../../lib/image-ref.ts';
import { isPrivateAddress } from '../../lib/private-address.ts';

/**
 * Podman's name for an image built or loaded on the machine (`localhost/…`): no registry
 * pull gives an image that name (Gantry never pulls a local image's name, and `localhost`
 * is a loopback registry besides), so only the operator can have put it there.
 */
export const DEFAULT_LOCAL_IMAGES: readonly string[] = ['localhost/'];

/**
 * GANTRY_DOCKER_LOCAL_IMAGES → its patterns: an image reference (normalised: `busybox:1.36`
 * is `docker.io/library/busybox:1.36`) or a name prefix `<registry>[/<path>]/*`, kept as the
 * prefix with its `/`; `none` for no local images. Undefined when an entry is neither.
 */
export function parseLocalImages(value: string): string[] | undefined {
  if (value.trim() === 'none') return [];
  const out: string[] = [];
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    if (entry.endsWith('/*')) {
      const prefix = entry.slice(0, -2);
      // written with its registry, as the name it matches (`ubuntu/*` would be docker.io/ubuntu/…)
      if (parseImageRef(`${prefix}/x`)?.name !== `${prefix}/x`) return undefined;
      out.push(`${prefix}/`);
    } else {
      const ref = parseImageRef(entry);
      if (!ref) return undefined;
      out.push(ref.canonical);
    }
  }
  return out.length ? out : undefined;
}

/** Whether `ref` is one of the operator's local images. */
export function isLocalImage(ref: ImageRef, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('/') ? ref.name.startsWith(p) : ref.canonical === p));
}

/**
 * GANTRY_DOCKER_PRIVATE_REGISTRIES → its entries: `*` (any), a host (any port of it) or
 * `host:port`, lower-cased; an IPv6 host in brackets (`[fd00::5]:5000`), kept without them
 * when no port follows. Undefined when an entry is no registry address.
 */
export function parsePrivateRegistries(value: string): string[] | undefined {
  const out: string[] = [];
  for (const entry of value.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
    if (entry === '*') {
      out.push(entry);
      continue;
    }
    const ref = parseImageRef(`${entry}/x`);
    if (!ref || ref.domain.toLowerCase() !== entry) return undefined;
    out.push(/\]$|^[^:]*$/.test(entry) ? ref.host : entry);
  }
  return out;
}

/** Resolves a host name to its addresses (node:dns in the driver, a table in tests). */
export type HostLookup = (host: string) => Promise<string[]>;

const REFUSED_HOST = 'on a loopback, private or link-local address';

/**
 * Why the engine must not pull `ref` from its registry, or undefined: its host is `localhost`,
 * a private IP, or a name that resolves to one, and the operator has not allowed it. A name
 * that does not resolve here is left to the engine (a registry mirror may serve it; the
 * engine says it cannot reach it otherwise). The answer says no more than "private": what a
 * name resolves to inside the network is not the tenant's to learn.
 */
export async function registryRefusal(ref: ImageRef, allowed: readonly string[], lookup: HostLookup): Promise<string | undefined> {
  if (allowed.some((a) => a === '*' || a === ref.host || a === ref.domain.toLowerCase())) return undefined;
  const refusal = `the registry ${ref.domain} of ${ref.canonical} is ${REFUSED_HOST}, which images are not pulled from (the operator allows such registries with GANTRY_DOCKER_PRIVATE_REGISTRIES)`;
  if (ref.host === 'localhost' || ref.host.endsWith('.localhost')) return refusal;
  if (isIP(ref.host)) return isPrivateAddress(ref.host) ? refusal : undefined;
  const addresses = await lookup(ref.host).catch(() => [] as string[]);
  return addresses.some((a) => isPrivateAddress(a)) ? refusal : undefined;
}
