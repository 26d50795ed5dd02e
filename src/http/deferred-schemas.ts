// Route schemas compiled on their first use, not when the app gets ready. Fastify compiles a
// validator for every request part and a serializer for every documented status of every
// route at start: ~90 AJV validators and ~130 fast-json-stringify serializers whose
// generated source V8 keeps as strings beside their code, ~7 MB of an idle server's heap
// (bench/README.md, "Start and idle memory"), mostly for routes a given server never serves.
// Each compiles on its route's first request; after that a call costs one more function
// call. A schema that does not compile would now fail its first request rather than the
// start: `compileAll()` compiles every one at once, and app.test.ts runs it on every route.
import { createRequire } from 'node:module';

type Serializer = (data: unknown) => string;
type SerializerContext = { schema?: unknown; method?: string; url?: string; httpStatus?: string };
type SerializerFactory = (externalSchemas: unknown, serializerOpts: unknown) => (ctx: SerializerContext) => Serializer;

export class DeferredSchemas {
  private readonly pending = new Set<() => unknown>();

  /** `compile`, memoized and run on the first call of what it returns (or by compileAll). */
  defer<T>(compile: () => T): () => T {
    let compiled: { value: T } | undefined;
    const get = (): T => {
      if (compiled === undefined) {
        compiled = { value: compile() };
        this.pending.delete(get);
      }
      return compiled.value;
    };
    this.pending.add(get);
    return get;
  }

  /** Compiles every schema not compiled yet; how many there were. Throws the first that fails, naming it. */
  compileAll(): number {
    const all = [...this.pending];
    for (const get of all) get();
    return all.length;
  }

  /**
   * Fastify's own serializer factory (the fast-json-stringify compiler fastify depends on,
   * resolved from fastify so it is the very one Fastify would use) with each serializer
   * compiled on its first answer. For the `schemaController.compilersFactory` option.
   */
  serializerFactory(): SerializerFactory {
    const fromFastify = createRequire(import.meta.resolve('fastify'));
    const build = (fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory)();
    return (externalSchemas, serializerOpts) => {
      const compile = build(externalSchemas, serializerOpts);
      return (ctx) => {
        const serializer = this.defer(() => {
          try {
            return compile(ctx);
          } catch (e) {
            throw new Error(`the ${ctx.httpStatus} answer of ${ctx.method} ${ctx.url} does not compile: ${(e as Error).message}`, { cause: e });
          }
        });
        return (data) => serializer()(data);
      };
    };
  }
}
