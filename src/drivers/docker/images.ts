// Which image a workload runs, and getting it (issue 40): a workload runs an image only after
// its registry let this team have it. An engine keeps what any team pulled, so "the image is
// here already" says nothing about the team asking; the rules, in order:
// - the reference is parsed and named fully (lib/image-ref.ts): an image id, or anything an
//   engine could read as one, is refused;
// - the operator's local images (GANTRY_DOCKER_LOCAL_IMAGES, `localhost/*` by default) run as
//   the engine has them, for every team, and are never pulled;
// - a registry on a loopback, private or link-local address is refused unless the operator
//   allows it (image-rules.ts);
// - with the team's registry credential, the image is pulled again at every create (as
//   Kubernetes' AlwaysPullImages: the registry checks the credential each time; the layers
//   the engine has are not downloaded again, a pull of an image there costs a manifest
//   request);
// - without one, an image the engine has runs from its cache only when it came from an
//   anonymous pull (a public image): that is recorded against the image's id (its content),
//   in the engine, as the volume `gantry-public-<id>`; any other is pulled anonymously, and
//   the registry says whether it is public.
// The container is created from the image id the check ended with, never the name again: a
// name can be moved to other content (another team's pull of the same tag) in between.
import { lookup as dnsLookup } from 'node:dns/promises';
import { type ImageRef, parseImageRef } from '../../lib/image-ref.ts';
import { pullFailureMessage } from '../pull-failure.ts';
import type { WorkloadSpec } from '../types.ts';
import { imagePullQuery, LABEL, registryAuthHeader } from './container.ts';
import { type EngineClient, isNotFound } from './engine.ts';
import { DEFAULT_LOCAL_IMAGES, type HostLookup, isLocalImage, registryRefusal } from './image-rules.ts';

/** The workload may not run its image: why, in words for the tenant (never the registry's). */
export class ImageRefused extends Error {}

export interface ImageRules {
  localImages?: readonly string[] | undefined;
  privateRegistries?: readonly string[] | undefined;
  /** how a registry's host name is resolved for its address check (default: the system's resolver) */
  lookup?: HostLookup | undefined;
}

const PULL_TIMEOUT_MS = 120_000;
const PUBLIC_MARKER = 'public-image';

async function systemLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

/** `sha256:<hex>` of an engine's image id (Docker says it so; an engine that leaves out the algorithm gets it added). */
function imageIdOf(id: string | undefined): string | undefined {
  const hex = id?.replace(/^sha256:/, '');
  return hex && /^[a-f0-9]{64}$/.test(hex) ? `sha256:${hex}` : undefined;
}

export class ImageGate {
  private readonly engine: EngineClient;
  private readonly localImages: readonly string[];
  private readonly privateRegistries: readonly string[];
  private readonly lookup: HostLookup;
  /** the last pull of each reference in this process: pulls of one reference run one at a time, each reading the id its own pull left */
  private readonly pulls = new Map<string, Promise<unknown>>();

  constructor(engine: EngineClient, rules: ImageRules) {
    this.engine = engine;
    this.localImages = rules.localImages ?? DEFAULT_LOCAL_IMAGES;
    this.privateRegistries = rules.privateRegistries ?? [];
    this.lookup = rules.lookup ?? systemLookup;
  }

  /**
   * The id of the image `spec` may run, pulled when the rules say so (`pulling` is called
   * first); ImageRefused when it may not run it.
   */
  async authorize(spec: Pick<WorkloadSpec, 'image' | 'imagePullAuth'>, signal: AbortSignal, pulling: () => void): Promise<string> {
    const ref = parseImageRef(spec.image);
    if (!ref) {
      throw new ImageRefused(`${JSON.stringify(spec.image.slice(0, 200))} is not an image reference: <registry>/<repository>:<tag> or …@sha256:<digest> (an image id names no registry and is not taken)`);
    }
    if (isLocalImage(ref, this.localImages)) return this.localImage(ref);
    const refusal = await registryRefusal(ref, this.privateRegistries, this.lookup);
    if (refusal) throw new ImageRefused(refusal);
    const auth = spec.imagePullAuth;
    if (!auth) {
      const cached = await this.imageId(ref.canonical);
      if (cached && (await this.isPublic(cached))) return cached;
    }
    pulling();
    return this.oneAtATime(ref.canonical, () => this.pullAndRead(ref, auth, signal));
  }

  private async localImage(ref: ImageRef): Promise<string> {
    const id = await this.imageId(ref.canonical);
    if (!id) throw new ImageRefused(`${ref.canonical} is one of the operator's images on this server (GANTRY_DOCKER_LOCAL_IMAGES), which are never pulled, and the server does not have it`);
    return id;
  }

  private async pullAndRead(ref: ImageRef, auth: WorkloadSpec['imagePullAuth'], signal: AbortSignal): Promise<string> {
    await this.pull(ref, auth, signal);
    const id = await this.imageId(ref.canonical);
    if (!id) throw new ImageRefused(`the engine ended the pull of ${ref.canonical} without the image`);
    if (!auth) await this.markPublic(id);
    return id;
  }

  /** POST /images/create with the credential, if any; a failure in Gantry's words (pull-failure.ts). */
  private async pull(ref: ImageRef, auth: WorkloadSpec['imagePullAuth'], signal: AbortSignal): Promise<void> {
    const headers: Record<string, string> = auth ? { 'x-registry-auth': registryAuthHeader(auth) } : {};
    let error: string | undefined;
    try {
      const res = await this.engine.stream('POST', '/images/create', { query: imagePullQuery(ref.canonical), headers, signal, timeoutMs: PULL_TIMEOUT_MS });
      // progress, one JSON object a line; a failure is an `error` member (Docker after it began, Podman always)
      let pending = '';
      for await (const chunk of res.body) {
        pending += (chunk as Buffer).toString('utf8');
        const rows = pending.split('\n');
        pending = rows.pop()!;
        for (const row of rows) error ??= pullError(row);
      }
      error ??= pullError(pending);
    } catch (err) {
      if (signal.aborted) throw err;
      error = err instanceof Error ? err.message : String(err);
    }
    if (error !== undefined) throw new ImageRefused(pullFailureMessage(ref.canonical, error, auth !== undefined));
  }

  /** The id of the image the engine has under `name`, or undefined. */
  private async imageId(name: string): Promise<string | undefined> {
    try {
      return imageIdOf((await this.engine.json<{ Id?: string }>('GET', `/images/${name}/json`))?.Id);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async isPublic(id: string): Promise<boolean> {
    try {
      await this.engine.json('GET', `/volumes/${publicMarkerName(id)}`);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private async markPublic(id: string): Promise<void> {
    await this.engine.json('POST', '/volumes/create', {
      body: { Name: publicMarkerName(id), Labels: { [LABEL.managed]: 'true', [LABEL.marker]: PUBLIC_MARKER } },
    });
  }

  private oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.pulls.get(key) ?? Promise.resolve()).catch(() => {}).then(fn);
    const tail = run.catch(() => {});
    this.pulls.set(key, tail);
    void tail.then(() => {
      if (this.pulls.get(key) === tail) this.pulls.delete(key);
    });
    return run;
  }
}

/** The volume that records an anonymous pull of image `id` (`sha256:<hex>`): the engine's image is public. */
export function publicMarkerName(id: string): string {
  return `gantry-public-${id.replace(/^sha256:/, '')}`;
}

/** A line of a pull's progress → its error, if it is one. */
function pullError(row: string): string | undefined {
  if (!row.trim()) return undefined;
  try {
    const j = JSON.parse(row) as { error?: string; errorDetail?: { message?: string } };
    return j.error || j.errorDetail?.message || undefined;
  } catch {
    return undefined;
  }
}
