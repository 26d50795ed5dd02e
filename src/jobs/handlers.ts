// What a job handler is, and how an area names its own. A job type is defined once, in its
// area's domain (`domain/<area>/jobs.ts`); the area's module here pairs it with a handler
// made from the parts of the service graph it uses, `handles(TYPE, (s) => ({ handler }))`,
// and the area's entry of src/areas.ts lists those. services.ts registers every area's with
// the runner (`jobs.handle`): the compiler checks there that the graph has what each uses,
// and a type two areas handle is refused at start. Rules in ./README.md.
import type { JobType, PayloadOfType } from '../domain/jobs/job-type.ts';
import type { JobContext } from '../domain/jobs/queue.ts';

export type JobHandler<P> = (job: JobContext<P>) => Promise<void>;

/** How a process runs one job type: its handler, and overrides of the type's everyMs and concurrency (configuration). */
export interface Registration<P> {
  handler: JobHandler<P>;
  everyMs?: number | undefined;
  concurrency?: number | undefined;
}

/**
 * A job type an area handles, and how its handler is made from the parts of the service
 * graph `S` it uses. The handler's payload type is the type's, checked by `handles`.
 */
export interface AreaJob<S = never> {
  type: JobType;
  /** a property, not a method: the graph `S` is checked strictly where it is handed over */
  make: (s: S) => Registration<never>;
}

/** `type`'s handler, made by `make` from the part of the graph it names (`(s: { files: Files }) => …`). */
export function handles<T extends JobType, S>(type: T, make: (s: S) => Registration<PayloadOfType<T>>): AreaJob<S> {
  return { type, make };
}
