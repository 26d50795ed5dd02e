// undici, loaded on the first outbound HTTP request (a model on an HTTP upstream, a serverless
// worker, a webhook) rather than at start: its ~110 modules hold ~5 MB of heap that a server
// on the simulated upstream, with no endpoint or webhook, never uses.
type Undici = typeof import('undici');

let loaded: Undici | undefined;
let loading: Promise<Undici> | undefined;

/** undici once it is loaded (callers on a hot path skip the await with `undiciLoaded() ?? await loadUndici()`). */
export function undiciLoaded(): Undici | undefined {
  return loaded;
}

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici').then((m) => (loaded = m), (e) => {
    loading = undefined; // tried again by the next request
    throw e;
  });
  return loading;
}
