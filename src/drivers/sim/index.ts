// The simulated driver's registration (drivers/index.ts): in process, on the injected clock.
// Its module (./driver.ts, with the worker servers and the model simulator) is imported by the
// factory, so a command that only reads the configuration does not load it.
import { defineDriver } from '../types.ts';

export const simDriver = defineDriver({
  kind: 'sim',
  settings: (read) => ({
    /** GANTRY_SIM_TIME_SCALE: 100 makes every delay 100 times shorter */
    timeScale: read.num('GANTRY_SIM_TIME_SCALE', 1),
  }),
  create: async (settings, { clock }) => {
    const { SimDriver } = await import('./driver.ts');
    return new SimDriver(clock, { timeScale: settings.timeScale });
  },
});
