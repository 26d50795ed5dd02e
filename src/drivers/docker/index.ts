// The docker driver's registration (drivers/index.ts): GPU instances and serverless workers as
// containers of one Docker Engine or Podman (its Docker-compatible socket). The engine client
// (./driver.ts, on undici) is imported by the factory, so a process on another driver never
// loads it.
import { defineDriver } from '../types.ts';
import { readDockerSettings } from './settings.ts';

export const dockerDriver = defineDriver({
  kind: 'docker',
  settings: readDockerSettings,
  create: async (settings) => {
    const { DockerDriver } = await import('./driver.ts');
    return new DockerDriver(settings);
  },
});
