// Where the migrations are (a module of its own: the start-up path names it before it loads the store).
import { fileURLToPath } from 'node:url';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
