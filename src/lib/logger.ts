// The one logger type of every layer. Fastify's (pino) is one: services.ts hands the app's
// logger down, and each part logs an object of fields, then a sentence, as pino takes them.
// Code below http/ never names Fastify's or pino's types; a test passes silentLogger or a
// recorder of its own.
export interface Logger {
  error(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  debug(fields: object, msg: string): void;
  /** a logger whose lines all carry `bindings` (`{ component: 'jobs' }`) */
  child(bindings: Record<string, unknown>): Logger;
}

const ignore = (): void => {};

/** Logs nothing (tests, tools that print their own output). */
export const silentLogger: Logger = { error: ignore, warn: ignore, info: ignore, debug: ignore, child: () => silentLogger };
