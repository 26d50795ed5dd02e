// The docker driver's usage samples against real engines of the test's own
// (test/helpers/engines.ts): both Debian's dockerd and Podman answer the one-shot stats the
// sampler reads, a running container of Gantry's is sampled (CPU in percent of its NanoCpus,
// memory of its limit, its GPUs — the UUIDs of its label — from a stand-in nvidia-smi printing
// the H200 server's captured output under load), a stopped one and one that is not Gantry's
// are not. Skipped with the reason where an engine is missing or the test is not root, never
// under GANTRY_TEST_REQUIRE_ENGINES=1.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineSkip, startEngine, type EngineKind, type TestEngine } from '../../../test/helpers/engines.ts';
import { LABEL } from './container.ts';
import { DockerDriver } from './driver.ts';

const UUID = 'GPU-1ea24dfe-1d62-46e0-93e3-ed192c09b34d';
const dir = mkdtempSync(join(tmpdir(), 'gantry-usage-engines-'));
const smi = join(dir, 'nvidia-smi');
writeFileSync(smi, `#!/bin/sh\ncat '${new URL('./fixtures/nvidia-smi/load-query.csv', import.meta.url).pathname}'\n`);
chmodSync(smi, 0o755);

const engines: Promise<TestEngine>[] = [];
after(async () => {
  await Promise.all(engines.map((e) => e.then((x) => x.stop(), () => {})));
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

for (const kind of ['dockerd', 'podman'] as const satisfies EngineKind[]) {
  test(`usage on ${kind}: running containers of Gantry's, their CPU, memory and GPUs`, { skip: engineSkip(kind), timeout: 120_000 }, async () => {
    const p = startEngine(kind);
    engines.push(p);
    const e = await p;
    const make = async (name: string, labels: Record<string, string>, start = true, env: string[] = []) => {
      const c = await e.api('POST', `/containers/create?name=${name}`, {
        Image: e.image, Cmd: ['sh', '-c', 'while :; do :; done'], Labels: labels, Env: env,
        HostConfig: { NanoCpus: 500_000_000, Memory: 256 * 1024 ** 2, MemorySwap: 256 * 1024 ** 2 },
      });
      assert.equal(c.status, 201, JSON.stringify(c.json));
      if (start) assert.equal((await e.api('POST', `/containers/${name}/start`)).status, 204);
    };
    // the GPU as Gantry records it: the label and its NVIDIA_VISIBLE_DEVICES (gpus.ts confirmedGpus; this engine has no GPU to ask as a device)
    await make('ins_gpu', { [LABEL.managed]: 'true', [LABEL.id]: 'ins_gpu', [LABEL.gpuUuids]: UUID }, true, [`NVIDIA_VISIBLE_DEVICES=${UUID}`]);
    await make('ins_cpu', { [LABEL.managed]: 'true', [LABEL.id]: 'ins_cpu' });
    await make('ins_stopped', { [LABEL.managed]: 'true', [LABEL.id]: 'ins_stopped', [LABEL.gpuUuids]: 'GPU-22222222-2222' }, false);
    await make('not_gantrys', {});
    const driver = new DockerDriver({ host: e.host, network: 'gantry-test', publishHost: '127.0.0.1', nvidiaSmi: smi });
    try {
      const first = await driver.usage();
      assert.deepEqual(first.map((u) => u.id).sort(), ['ins_cpu', 'ins_gpu']);
      // Podman's first reading has no window of its own (precpu_stats empty); dockerd's has its 1 s one
      if (kind === 'podman') assert.equal(first.find((u) => u.id === 'ins_gpu')!.cpuPct, undefined);
      // the next readings measure since the previous one: wait until both busy loops show CPU
      // (how much depends on what else the machine runs: at least some, never over the limit)
      let second = await driver.usage();
      for (const deadline = Date.now() + 30_000; Date.now() < deadline && !second.every((u) => (u.cpuPct ?? 0) > 0);) {
        await sleep(200);
        second = await driver.usage();
      }
      const gpu = second.find((u) => u.id === 'ins_gpu')!;
      const cpu = second.find((u) => u.id === 'ins_cpu')!;
      assert.deepEqual(gpu.gpus, [{ uuid: UUID, index: 0, utilizationPct: 100, memoryUsedMiB: 20085, memoryTotalMiB: 143771 }]);
      assert.deepEqual(cpu.gpus, []);
      for (const u of [gpu, cpu]) {
        // a busy loop on half a CPU; Podman here runs on cgroupfs v1 without enforcing the quota: capped at 100
        assert.ok(u.cpuPct !== undefined && u.cpuPct > 0 && u.cpuPct <= 100, `${kind} ${u.id} cpu ${u.cpuPct}`);
        assert.ok(u.memoryPct !== undefined && u.memoryPct > 0 && u.memoryPct < 10, `${kind} ${u.id} memory ${u.memoryPct}`);
        assert.equal(u.rootDiskPct, undefined);
      }
    } finally {
      await driver.close();
    }
  });
}
