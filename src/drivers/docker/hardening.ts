// What every container of the docker driver is denied, the same on Docker and Podman
// (docs/security.md, "Containers on one server"): every capability but a short list, no new
// privileges through setuid or file capabilities, the engine's default seccomp profile, a
// process limit, and its root filesystem sized by the storage driver's quota where the engine
// has one. Pure: createBody and libpodCreateBody take their parts from here.

/**
 * The capabilities a container keeps; every other one is dropped (CapDrop ALL). The engines'
 * default set (Docker's 14, Podman's as Debian ships it the same) also has MKNOD, NET_RAW,
 * SETFCAP, SETPCAP, SYS_CHROOT and AUDIT_WRITE: each of those is gone (device nodes, raw
 * sockets that forge packets on the bridge, granting file capabilities, changing the
 * bounding set, chroot, writing the host's audit log). Kept, because a tenant is root in its
 * own container and installs and runs software there (apt-get, pip, an entrypoint that drops
 * to a user): each is needed for that, and none reaches past the container's own files and
 * processes. The values say why (docs/security.md lists them).
 */
export const KEPT_CAPABILITIES = {
  /** give files to another user (dpkg, tar, chown in entrypoints) */
  CHOWN: 'package managers and archives set the owners of what they install',
  /** read and write files whatever their mode bits */
  DAC_OVERRIDE: 'root in the container reads and writes its own files whatever their modes (images rely on it)',
  /** change the mode and times of files of another owner */
  FOWNER: 'chmod and utime on files root does not own (dpkg, tar, pip)',
  /** keep setuid/setgid bits when changing a file */
  FSETID: 'installing a package keeps its files\' setgid directories and modes as shipped',
  /** signal processes of other users */
  KILL: 'a supervisor or shell in the container signals its processes run as other users',
  /** change group and user ids */
  SETGID: 'apt, su, gosu and entrypoints run programs as an unprivileged user',
  SETUID: 'apt, su, gosu and entrypoints run programs as an unprivileged user',
  /** listen on ports below 1024 (Pod Security "restricted" allows it too) */
  NET_BIND_SERVICE: 'servers on ports below 1024 (a web UI on 80, sshd on 22)',
} as const;

export const KEPT_CAPABILITY_NAMES = Object.keys(KEPT_CAPABILITIES) as (keyof typeof KEPT_CAPABILITIES)[];

/** The HostConfig fields that confine a container (Docker's API; libpodSecurity says the same to libpod). */
export function hostSecurity(pidsLimit: number): Record<string, unknown> {
  return {
    Privileged: false,
    CapDrop: ['ALL'],
    CapAdd: [...KEPT_CAPABILITY_NAMES],
    // no seccomp= option: the engine's default profile stays (never `seccomp=unconfined`)
    SecurityOpt: ['no-new-privileges'],
    PidsLimit: pidsLimit,
  };
}

/** The same confinement as libpod's SpecGenerator fields (Podman's own create, used for GPUs). */
export function libpodSecurity(h: { CapDrop?: string[]; CapAdd?: string[]; SecurityOpt?: string[]; PidsLimit?: number }): Record<string, unknown> {
  return {
    privileged: false,
    cap_drop: h.CapDrop ?? [],
    cap_add: h.CapAdd ?? [],
    no_new_privileges: (h.SecurityOpt ?? []).includes('no-new-privileges'),
  };
}

/** The storage driver's quota for the root filesystem (overlay2/overlay over xfs with pquota): `size` in GiB. */
export function rootfsQuota(rootfsGb: number): Record<string, string> {
  return { size: `${Math.max(1, Math.ceil(rootfsGb * 1024))}M` };
}

/** The engine's refusal of a storage quota it cannot keep (the same words on Docker and Podman). */
export function isQuotaUnsupported(message: string): boolean {
  return /--storage-opt is supported only|storage-opt.*not supported|quota.*not supported/i.test(message);
}
