// Container image references as Docker reads them (distribution's reference grammar and
// its normalisation, `docker.io/library/…` for a short name), so that Gantry names every
// image fully before an engine sees it. Why it matters: an engine given a string that is not
// a name it knows falls back to looking it up as an image id or a prefix of one (Docker's
// image store search, Podman's truncated-id index), so `4a8` could run any image the engine
// holds whatever its registry says; a fully qualified `domain/path:tag` or `…@sha256:…` is
// never read as an id.

export interface ImageRef {
  /** the registry: `docker.io`, `ghcr.io`, `127.0.0.1:5000`, `[::1]:5000` */
  domain: string;
  /** the registry's host without port or brackets, lower-cased: what its address is checked by */
  host: string;
  /** the repository in it: `library/busybox`, `team/app` */
  path: string;
  /** `domain/path` */
  name: string;
  /** undefined when a digest names the image */
  tag: string | undefined;
  /** `sha256:<hex>`, when given */
  digest: string | undefined;
  /** `name@digest`, else `name:tag` (`latest` when none was given) */
  canonical: string;
}

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]{1,5})?$`);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
/** what an engine would take for an image id (a full one; a prefix is any shorter run of hex) */
const IMAGE_ID = /^(?:sha256:)?[a-f0-9]{64}$/;
const MAX_NAME = 255;

/** `name[:tag][@digest]` → its parts, normalised as Docker does; undefined when it is no image reference (an image id among them). */
export function parseImageRef(ref: string): ImageRef | undefined {
  if (IMAGE_ID.test(ref)) return undefined;
  const at = ref.indexOf('@');
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  if (digest !== undefined && !DIGEST.test(digest)) return undefined;
  const named = at >= 0 ? ref.slice(0, at) : ref;
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > slash ? named.slice(colon + 1) : undefined;
  if (tag !== undefined && !TAG.test(tag)) return undefined;
  const split = splitDomain(colon > slash ? named.slice(0, colon) : named);
  if (!split) return undefined;
  const { domain, path } = split;
  if (!DOMAIN.test(domain) || !path.split('/').every((c) => PATH_COMPONENT.test(c))) return undefined;
  const name = `${domain}/${path}`;
  if (name.length > MAX_NAME) return undefined;
  const host = domain.replace(/:[0-9]+$/, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return {
    domain, host, path, name, tag: digest ? undefined : (tag ?? 'latest'), digest,
    canonical: digest ? `${name}@${digest}` : `${name}:${tag ?? 'latest'}`,
  };
}

/**
 * The registry and the repository (distribution's splitDockerDomain): the first component is
 * a registry when it holds `.` or `:`, is `localhost`, or has upper-case letters; else the
 * image is Docker Hub's, under `library/` when it has one component.
 */
function splitDomain(name: string): { domain: string; path: string } | undefined {
  if (!name) return undefined;
  const i = name.indexOf('/');
  const first = i < 0 ? '' : name.slice(0, i);
  const isDomain = i >= 0 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  let domain = isDomain ? first : 'docker.io';
  let path = isDomain ? name.slice(i + 1) : name;
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  return path ? { domain, path } : undefined;
}
