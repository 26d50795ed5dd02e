// The media area's context: the model catalogue and the async tasks (each its own context,
// catalogue.ts and tasks.ts), handed to routes and jobs together as `media`.
import type { MediaCatalogue } from './catalogue.ts';
import type { MediaTasks } from './tasks.ts';

export interface Media {
  catalogue: MediaCatalogue;
  tasks: MediaTasks;
}
