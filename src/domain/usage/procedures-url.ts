// Where the embedded database's thread finds the usage procedures (procedures.ts): a module of
// its own so the process can name them before it loads them (cli/commands.ts starts that thread first).
export const USAGE_PROCEDURES = new URL('./procedures.ts', import.meta.url).href;
