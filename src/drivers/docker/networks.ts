// A bridge network per team (drivers/README.md, docker, "Networks"): a team's containers
// join `<prefix>-<team id>`, made when its first container is, removed when its last one is
// gone, so an engine holds one network (one address range) per team that runs something.
// Traffic between two teams' networks is the engine's to drop: dockerd's firewall rules
// between bridges (`--iptables`, its default), and on Podman the network's `isolate` option
// (netavark's rules), which only Podman's own API sets.
import { teamNetworkName } from './container.ts';
import { type EngineClient, EngineError, isNotFound } from './engine.ts';
import { LABEL } from './labels.ts';

/** The engine has no address range left for another network (Docker's default pools hold ~30). */
export class NetworkPoolExhausted extends Error {}

export class TeamNetworks {
  private readonly engine: EngineClient;
  private readonly prefix: string;
  /** networks known to exist, by team: made (or found) once per process */
  private readonly made = new Map<string, Promise<string>>();
  /** one network change or container creation at a time per team, so a removal never races a new container */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(engine: EngineClient, prefix: string) {
    this.engine = engine;
    this.prefix = prefix;
  }

  /**
   * Runs `fn` with the team's network made, under the team's lock: a container created in
   * `fn` exists before any removal of the network looks for the team's containers.
   */
  withNetwork<T>(teamId: string, fn: (network: string) => Promise<T>): Promise<T> {
    return this.locked(teamId, async () => fn(await this.ensure(teamId)));
  }

  /** Removes the team's network when none of its containers is left (a created one counts). */
  dropIfUnused(teamId: string): Promise<void> {
    return this.locked(teamId, async () => {
      const rows = await this.engine.json<unknown[]>('GET', '/containers/json', {
        query: { all: 1, filters: JSON.stringify({ label: [`${LABEL.managed}=true`, `${LABEL.team}=${teamId}`] }) },
      });
      if (rows?.length) return;
      this.made.delete(teamId);
      try {
        await this.engine.json('DELETE', `/networks/${teamNetworkName(this.prefix, teamId)}`);
      } catch (err) {
        // gone already, or in use by a container the engine still has (not Gantry's): it stays
        if (!isNotFound(err) && !(err instanceof EngineError && err.status < 500)) throw err;
      }
    });
  }

  /** The network was removed under us (an operator, another process): made again next time. */
  forget(teamId: string): void {
    this.made.delete(teamId);
  }

  private locked<T>(teamId: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(teamId) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => {});
    this.locks.set(teamId, settled);
    void settled.then(() => {
      if (this.locks.get(teamId) === settled) this.locks.delete(teamId);
    });
    return run;
  }

  private ensure(teamId: string): Promise<string> {
    let p = this.made.get(teamId);
    if (!p) {
      p = this.make(teamId);
      this.made.set(teamId, p);
      p.catch(() => this.made.delete(teamId));
    }
    return p;
  }

  private async make(teamId: string): Promise<string> {
    const name = teamNetworkName(this.prefix, teamId);
    try {
      await this.engine.json('GET', `/networks/${name}`);
      return name;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const labels = { [LABEL.managed]: 'true', [LABEL.team]: teamId };
    try {
      if ((await this.engine.version()).engine === 'podman') {
        // Podman's Docker-compatible API drops the option ("not a recognized option"): libpod's takes it
        await this.engine.json('POST', '/networks/create', { libpod: true, body: { name, driver: 'bridge', labels, options: { isolate: 'true' } } });
      } else {
        await this.engine.json('POST', '/networks/create', { body: { Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: labels } });
      }
    } catch (e) {
      if (e instanceof EngineError && e.status === 409) return name; // made by another call meanwhile
      if (/available, non-overlapping|no available|exhausted/i.test((e as Error).message)) throw new NetworkPoolExhausted((e as Error).message);
      throw e;
    }
    return name;
  }
}
