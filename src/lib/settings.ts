// How a part with settings of its own (a compute driver: drivers/index.ts) reads them: through
// the readers loadConfig (src/config.ts) hands it, which check each value and collect every
// problem, so a bad setting is refused with all the others at once. Nothing else reads the
// environment.
export interface SettingReaders {
  /** a text; `def` when unset or empty */
  text(name: string, def: string): string;
  /** a text that may be absent: undefined when unset or empty */
  optionalText(name: string): string | undefined;
  /** an integer in [min, max]; `def` when unset or empty */
  int(name: string, def: number, min: number, max: number): number;
  /** a positive number; `def` when unset or empty */
  num(name: string, def: number): number;
  /** true/false (1/0, yes/no, on/off); `def` when unset or empty */
  bool(name: string, def: boolean): boolean;
  /** one of `allowed`; `def` when unset or empty */
  oneOf<T extends string>(name: string, allowed: readonly T[], def: T): T;
  /** a problem with a value the readers above cannot see (e.g. two settings that disagree) */
  problem(message: string): void;
}

/** `a`, `a or b`, `a, b or c`: the allowed values in a problem's words. */
export function orList(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}
