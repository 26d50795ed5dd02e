// Gantry's cookie namespace: the console's session cookie and anything else Gantry names
// `gantry_…`. The serverless data plane (gateway/serverless/proxy.ts) never passes one to a
// worker nor lets a worker set one.

/** Whether a cookie name is Gantry's (`gantry_…`, any case, with or without a `__Host-`/`__Secure-` prefix). */
export function isGantryCookieName(name: string): boolean {
  return /^(__host-|__secure-)?gantry_/i.test(name.trim());
}

/** A Cookie header without Gantry's cookies (undefined when nothing is left). */
export function withoutGantryCookies(header: string): string | undefined {
  const kept = header.split(';').map((p) => p.trim()).filter((p) => p !== '' && !isGantryCookieName(p.split('=', 1)[0]!));
  return kept.length ? kept.join('; ') : undefined;
}
