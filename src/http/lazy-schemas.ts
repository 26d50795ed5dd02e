// Route schemas compiled at their first use rather than at the start. Compiling every route's
// request validators (ajv) and response serializers (fast-json-stringify) was ~0.6 s of each
// start, on the main thread, after the database was ready (bench/README.md, "first start");
// and the code of a route nobody calls need never be built nor kept in memory.
// `compileAll()` compiles whatever is still pending: a test proves every schema compiles,
// so a broken schema fails the suite, never a user's first request.
// The model calls' schemas (`eager`) are compiled at the start all the same: they are the
// hot path, and their big ones (chat completions, responses) take 15–30 ms each, which a
// first request would otherwise wait for in one turn of the event loop, holding every other
// request (test/big-inputs.process.test.ts allows 50 ms).
// The same schema is compiled once: Fastify asks for a serializer per route, status code and
// encapsulation context, and most are alike (every error answer is the same `ErrorBody` ref;
// a path served under several prefixes repeats all of its schemas). At a start: 1,003
// serializers asked for, 66 distinct, 412 of them compiled at once for the model calls (14
// distinct); 230 validators, 100 distinct.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

export class LazySchemas {
  readonly #pending = new Set<() => unknown>();
  /** The getter of each distinct schema, by `same` (defer's). */
  readonly #bySchema = new Map<string, () => unknown>();
  #asked = 0;
  #distinct = 0;
  /** Routes (`METHOD /url`) whose schemas compile at once rather than at first use. */
  readonly eager = new Set<string>();

  /**
   * A getter that runs `compile` once, at its first call (or at compileAll), and keeps the
   * result; at once when `route` is one of `eager`. `same`: what the compile depends on, as
   * text (the schema's JSON, and the compiler's); a later defer with the same text gets the
   * same getter and compiles nothing more.
   */
  defer<F>(compile: () => F, route?: string, same?: string): () => F {
    this.#asked++;
    const now = route !== undefined && this.eager.has(route);
    const known = same === undefined ? undefined : (this.#bySchema.get(same) as (() => F) | undefined);
    if (known) {
      if (now) known();
      return known;
    }
    let compiled: F | undefined;
    const get = (): F => {
      if (compiled === undefined) {
        compiled = compile();
        this.#pending.delete(get);
      }
      return compiled;
    };
    this.#pending.add(get);
    this.#distinct++;
    if (same !== undefined) this.#bySchema.set(same, get);
    if (now) get();
    return get;
  }

  /** Compiles every schema not compiled yet; how many there were. Throws what a compile throws. */
  compileAll(): number {
    const pending = [...this.#pending];
    for (const get of pending) get();
    return pending.length;
  }

  /** How many schemas were deferred, and how many distinct ones (compiled or pending) they are. */
  get asked(): number {
    return this.#asked;
  }

  get distinct(): number {
    return this.#distinct;
  }

  /** How many schemas are still waiting for their first use. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Fastify's `schemaController.compilersFactory.buildSerializer`: its default serializers
   * (fast-json-stringify, with the shared schemas added by addSchema), each compiled at the
   * first answer it serializes.
   */
  serializers(): SerializerFactory {
    const build = SerializerSelector();
    return (externalSchemas, options) => {
      const compile = build(externalSchemas, options);
      // a serializer depends on its schema, the shared schemas it may refer to and the options
      const context = `serializer ${JSON.stringify([externalSchemas, options ?? null])}`;
      return (route) => {
        const get = this.defer(() => compile(route), `${route.method} ${route.url}`, `${context} ${JSON.stringify(route.schema)}`);
        return (doc) => get()(doc);
      };
    };
  }
}
