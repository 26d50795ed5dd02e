// The docker driver's readings for the catalogue and metrics without an engine: the engines'
// real stats answers (fixtures/engine-stats, captured from dockerd and Podman here) and
// nvidia-smi's real output from an H200 server (fixtures/nvidia-smi) read by a stand-in that
// prints it; never hand-written samples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config.ts';
import { SEED_CLUSTER_ID } from '../../domain/compute/seed.ts';
import { parseGpuQuery } from './gpus.ts';
import { DockerDriver } from './driver.ts';
import { DEFAULT_DOCKER_CLUSTER, type DockerSettings, parseGpuEntries } from './settings.ts';
import { cpuMark, cpuPercent, type EngineStats, gpusOf, memoryPercent, precpuMark, readInventory } from './usage.ts';

const NVIDIA = new URL('./fixtures/nvidia-smi/', import.meta.url);
const STATS = new URL('./fixtures/engine-stats/', import.meta.url);
const stats = (engine: string) => JSON.parse(readFileSync(new URL(`${engine}-stats.json`, STATS), 'utf8')) as EngineStats;
const UUID = 'GPU-1ea24dfe-1d62-46e0-93e3-ed192c09b34d';

/** A stand-in nvidia-smi printing the captured `--query-gpu` output of `file` (idle-query.csv, load-query.csv). */
function fakeSmi(dir: string, file: string | 'fail'): string {
  const smi = join(dir, `nvidia-smi-${file}`);
  const body = file === 'fail'
    ? 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver." >&2\nexit 9'
    : `cat '${new URL(file, NVIDIA).pathname}'`;
  writeFileSync(smi, `#!/bin/sh\n${body}\n`);
  chmodSync(smi, 0o755);
  return smi;
}

const settings = (s: Partial<DockerSettings>): DockerSettings => ({ host: 'unix:///x.sock', network: 'gantry', publishHost: '127.0.0.1', ...s });

test('CPU from the engines\' stats: Docker\'s 1 s window (precpu), in percent of the CPUs given; Podman has none on a first reading', () => {
  const d = stats('dockerd');
  // the captured container spun on 0.5 CPU (NanoCpus 5e8) and was throttled at it: 100 % of what it was given
  assert.equal(cpuPercent(cpuMark(d), precpuMark(d), 0.5), 100);
  // the same reading against the machine's 2 CPUs (a container without a CPU limit): a quarter
  const used = d.cpu_stats!.cpu_usage!.total_usage! - d.precpu_stats!.cpu_usage!.total_usage!;
  const wallMs = Date.parse(d.read!.slice(0, 23) + 'Z') - Date.parse(d.preread!.slice(0, 23) + 'Z');
  assert.equal(cpuPercent(cpuMark(d), precpuMark(d), d.cpu_stats!.online_cpus), Math.round((used / (wallMs * 1e6 * 2)) * 10_000) / 100);
  assert.ok(Math.abs(cpuPercent(cpuMark(d), precpuMark(d), 2)! - 25) < 0.5);
  const p = stats('podman');
  assert.equal(precpuMark(p), undefined, 'Podman leaves precpu_stats empty');
  assert.ok(cpuMark(p));
  assert.equal(cpuPercent(cpuMark(p), precpuMark(p), 0.5), undefined);
  // between two samples (the sampler keeps the last mark): Podman's reading against Docker-like marks of the same container
  const before = { totalNs: cpuMark(p)!.totalNs - 1_500_000_000, atMs: cpuMark(p)!.atMs - 15_000 };
  assert.equal(cpuPercent(cpuMark(p), before, 1), 10);
  assert.equal(cpuPercent(cpuMark(p), { ...before, atMs: cpuMark(p)!.atMs }, 1), undefined, 'no time between');
});

test('memory from the engines\' stats: usage less the inactive page cache, in percent of the limit', () => {
  const d = stats('dockerd');
  assert.equal(memoryPercent(d), Math.round((d.memory_stats!.usage! / d.memory_stats!.limit!) * 10_000) / 100);
  assert.equal(memoryPercent(stats('podman')), 0.27);
  // cgroup v1's total_inactive_file is taken off (a reading with cache)
  assert.equal(memoryPercent({ memory_stats: { ...d.memory_stats, usage: 100 * 1024 ** 2, stats: { ...d.memory_stats!.stats, total_inactive_file: 36 * 1024 ** 2 } } }), 25);
  assert.equal(memoryPercent({}), undefined);
});

test('a container\'s GPUs from one nvidia-smi reading: idle, then under load', () => {
  const idle = new Map(parseGpuQuery(readFileSync(new URL('idle-query.csv', NVIDIA), 'utf8')).map((g) => [g.uuid, g]));
  const load = new Map(parseGpuQuery(readFileSync(new URL('load-query.csv', NVIDIA), 'utf8')).map((g) => [g.uuid, g]));
  assert.deepEqual(gpusOf([UUID], idle), [{ uuid: UUID, index: 0, utilizationPct: 0, memoryUsedMiB: 0, memoryTotalMiB: 143771 }]);
  assert.deepEqual(gpusOf([UUID], load), [{ uuid: UUID, index: 0, utilizationPct: 100, memoryUsedMiB: 20085, memoryTotalMiB: 143771 }]);
  // a GPU nvidia-smi did not list (or could not be read): its values are unknown
  assert.deepEqual(gpusOf(['GPU-22222222-2222'], load), [{ uuid: 'GPU-22222222-2222', index: -1, utilizationPct: undefined, memoryUsedMiB: undefined, memoryTotalMiB: undefined }]);
});

test('the inventory for the catalogue: nvidia-smi\'s GPUs, the operator\'s list (models from =<model> or nvidia-smi), none, a failure', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-usage-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const smi = fakeSmi(dir, 'idle-query.csv');
  assert.deepEqual(await readInventory(settings({ nvidiaSmi: smi })), [
    { index: 0, uuid: UUID, name: 'NVIDIA H200', memoryTotalMiB: 143771, memoryUsedMiB: 0, utilizationGpuPct: 0 },
  ]);
  // no nvidia-smi: a CPU-only server, no GPUs; one that fails rejects (the domain keeps the inventory it had)
  assert.deepEqual(await readInventory(settings({ nvidiaSmi: join(dir, 'absent') })), []);
  await assert.rejects(readInventory(settings({ nvidiaSmi: fakeSmi(dir, 'fail') })), /couldn't communicate with the NVIDIA driver/);
  // the operator's list: models from nvidia-smi where it answers, else from =<model>, else none
  const other = 'GPU-22222222-2222';
  assert.deepEqual((await readInventory(settings({ nvidiaSmi: smi, gpus: [UUID, other] }))).map((g) => [g.index, g.uuid, g.name]), [[0, UUID, 'NVIDIA H200'], [1, other, '']]);
  assert.deepEqual((await readInventory(settings({ nvidiaSmi: join(dir, 'absent'), gpus: [UUID, other], gpuNames: { [other]: 'NVIDIA H100 80GB HBM3' } }))).map((g) => g.name), ['', 'NVIDIA H100 80GB HBM3']);
  assert.deepEqual(await readInventory(settings({ nvidiaSmi: smi, gpus: [] })), []);
});

test('settings: GANTRY_DOCKER_CLUSTER (default the seeded cluster) and GANTRY_DOCKER_GPUS with models', async () => {
  assert.equal(DEFAULT_DOCKER_CLUSTER, SEED_CLUSTER_ID);
  const base = { GANTRY_COMPUTE_DRIVER: 'docker' };
  const s = loadConfig(base, '/tmp').computeDriver.settings as DockerSettings;
  assert.equal(s.cluster, undefined);
  assert.equal(s.gpuNames, undefined);
  const driver = new DockerDriver(s);
  assert.equal(driver.inventory.clusterId, 'cls_local', 'unset: the seeded cluster');
  await driver.close();
  const named = loadConfig({ ...base, GANTRY_DOCKER_CLUSTER: 'gpu-box.1', GANTRY_DOCKER_GPUS: `${UUID}=NVIDIA H200, GPU-22222222-2222` }, '/tmp').computeDriver.settings as DockerSettings;
  assert.equal(named.cluster, 'gpu-box.1');
  assert.deepEqual(named.gpus, [UUID, 'GPU-22222222-2222']);
  assert.deepEqual(named.gpuNames, { [UUID]: 'NVIDIA H200' });
  assert.deepEqual(parseGpuEntries(`${UUID}=NVIDIA H200`), [{ uuid: UUID, name: 'NVIDIA H200' }]);
  assert.equal(parseGpuEntries(`${UUID}=a,${UUID}=b`), undefined, 'a GPU twice');
  assert.throws(() => loadConfig({ ...base, GANTRY_DOCKER_CLUSTER: 'no spaces' }, '/tmp'), /GANTRY_DOCKER_CLUSTER must be a cluster id/);
});
