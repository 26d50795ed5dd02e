// The docker driver's GPUs without an engine: nvidia-smi's real output from an H200 server
// (fixtures/nvidia-smi, a copy of ../shared/fixtures/nvidia-smi; never hand-written samples) parsed and checked against its
// `-q -x` XML, the operator's list, a missing nvidia-smi, picking free GPUs, and the create
// body of each pinning mode (GANTRY_DOCKER_GPU_MODE) with its envs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config.ts';
import { baseSpec } from '../contract.ts';
import { createBody, LABEL, libpodCreateBody } from './container.ts';
import {
  cdiName, confirmedGpus, deviceRequests, gpuEnvs, gpuInventory, heldGpus, parseComputeApps, parseGpuQuery, pickGpus, readComputeApps, readGpus,
} from './gpus.ts';
import { parseGpuList } from './settings.ts';

// a copy of ../shared/fixtures/nvidia-smi (captured on an H200 server: its README.md), kept with the code for CI's clean clone
const FIXTURES = new URL('./fixtures/nvidia-smi/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');
const UUID = 'GPU-1ea24dfe-1d62-46e0-93e3-ed192c09b34d';

/** The text of the first element at `path` (each the first of its tag after the one before) of an nvidia-smi -q -x document. */
function xml(doc: string, path: string[]): string {
  let at = 0;
  for (const tag of path) {
    const i = doc.slice(at).search(new RegExp(`<${tag}[ >]`));
    assert.ok(i >= 0, `<${tag}> in the XML`);
    at = doc.indexOf('>', at + i) + 1;
  }
  return doc.slice(at, doc.indexOf('<', at)).trim();
}

test('nvidia-smi --query-gpu --format=csv: the idle and loaded H200, units and all, agree with -q -x', () => {
  const [idle] = parseGpuQuery(fixture('idle-query.csv'));
  const [load] = parseGpuQuery(fixture('load-query.csv'));
  assert.deepEqual(idle, {
    index: 0, uuid: UUID, name: 'NVIDIA H200',
    memoryTotalMiB: 143771, memoryUsedMiB: 0, memoryFreeMiB: 143156, utilizationGpuPct: 0, utilizationMemoryPct: 0,
    temperatureC: 35, powerDrawW: 78.52, powerLimitW: 700, pciBusId: '00000000:00:06.0', driverVersion: '580.159.04',
    migMode: 'Disabled', computeCap: '9.0', clockSmMHz: 345, clockMaxSmMHz: 1980,
  });
  assert.equal(parseGpuQuery(fixture('idle-query.csv')).length, 1);
  assert.equal(load?.utilizationGpuPct, 100);
  assert.equal(load?.memoryUsedMiB, 20085);
  assert.equal(load?.powerDrawW, 690.47);
  assert.equal(load?.temperatureC, 57);
  assert.equal(load?.clockSmMHz, 1455, 'clocks.sm is printed as clocks.current.sm');
  for (const [csv, doc] of [[idle, fixture('idle-q.xml')], [load, fixture('load-q.xml')]] as const) {
    assert.equal(csv?.uuid, xml(doc, ['gpu', 'uuid']));
    assert.equal(csv?.name, xml(doc, ['gpu', 'product_name']));
    assert.equal(`${csv?.memoryTotalMiB} MiB`, xml(doc, ['fb_memory_usage', 'total']));
    assert.equal(`${csv?.utilizationGpuPct} %`, xml(doc, ['utilization', 'gpu_util']));
    assert.equal(String(csv?.index), xml(doc, ['gpu', 'minor_number']));
  }
  // the uuid -L lists too
  assert.match(fixture('list.txt'), new RegExp(`UUID: ${UUID}`));
});

test('--format=csv,noheader,nounits and values nvidia-smi cannot give ([N/A], [Not Supported])', () => {
  // the same reading as the fixture, as noheader,nounits prints it: the fixture's values without their units
  const line = fixture('load-query.csv').split('\n')[1]!.split(', ').map((v) => v.replace(/ (MiB|%|W|MHz)$/, '')).join(', ');
  assert.deepEqual(parseGpuQuery(`${line}\n`), parseGpuQuery(fixture('load-query.csv')));
  const cells = line.split(', ');
  cells[9] = '[N/A]'; // power.draw
  cells[13] = '[Not Supported]'; // mig.mode.current
  cells[8] = 'N/A';
  const [g] = parseGpuQuery(cells.join(', '));
  assert.equal(g?.powerDrawW, undefined);
  assert.equal(g?.migMode, undefined);
  assert.equal(g?.temperatureC, undefined);
  assert.equal(g?.uuid, UUID);
  assert.deepEqual(parseGpuQuery(''), []);
  assert.deepEqual(parseGpuQuery('No devices were found\n'), []);
});

test('nvidia-smi --query-compute-apps: the process under load, agreeing with -q -x', () => {
  const apps = parseComputeApps(fixture('load-compute-apps.csv'));
  assert.deepEqual(apps, [{ pid: 672, processName: 'python3', usedMemoryMiB: 20076, gpuUuid: UUID }]);
  const doc = fixture('load-q.xml');
  assert.equal(String(apps[0]?.pid), xml(doc, ['process_info', 'pid']));
  assert.equal(`${apps[0]?.usedMemoryMiB} MiB`, xml(doc, ['process_info', 'used_memory']));
  // noheader, and a process name with a comma in it (nvidia-smi does not quote)
  const row = fixture('load-compute-apps.csv').split('\n')[1]!.replace('python3', '/opt/a, b/python3');
  assert.deepEqual(parseComputeApps(row), [{ pid: 672, processName: '/opt/a, b/python3', usedMemoryMiB: 20076, gpuUuid: UUID }]);
  assert.deepEqual(parseComputeApps(fixture('load-compute-apps.csv').split('\n')[0]!), []);
});

test('the inventory: the operator list, nvidia-smi (a stand-in printing the fixture), none, one that fails', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-smi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const smi = join(dir, 'nvidia-smi');
  const args = join(dir, 'args');
  // prints the captured output for the query it was given, and records its arguments
  writeFileSync(smi, `#!/bin/sh\necho "$@" >> '${args}'\ncase "$1" in --query-gpu=*) cat '${new URL('load-query.csv', FIXTURES).pathname}';; *) cat '${new URL('load-compute-apps.csv', FIXTURES).pathname}';; esac\n`);
  chmodSync(smi, 0o755);
  assert.deepEqual(await gpuInventory({ nvidiaSmi: smi }), { gpus: [{ uuid: UUID, index: 0, name: 'NVIDIA H200' }] });
  assert.equal((await readGpus({ nvidiaSmi: smi }))[0]?.utilizationGpuPct, 100);
  assert.equal((await readComputeApps({ nvidiaSmi: smi }))[0]?.pid, 672);
  assert.deepEqual(readFileSync(args, 'utf8').trim().split('\n'), [
    '--query-gpu=index,uuid,name,memory.total,memory.used,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,pci.bus_id,driver_version,mig.mode.current,compute_cap,clocks.sm,clocks.max.sm --format=csv',
    '--query-gpu=index,uuid,name,memory.total,memory.used,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,pci.bus_id,driver_version,mig.mode.current,compute_cap,clocks.sm,clocks.max.sm --format=csv',
    '--query-compute-apps=pid,process_name,used_memory,gpu_uuid --format=csv',
  ]);
  // the operator's list wins; nvidia-smi is not run
  assert.deepEqual(await gpuInventory({ nvidiaSmi: join(dir, 'absent'), configured: ['GPU-aaaaaaaa-0000', UUID] }), {
    gpus: [{ uuid: 'GPU-aaaaaaaa-0000', index: 0, name: '' }, { uuid: UUID, index: 1, name: '' }],
  });
  // no nvidia-smi: a CPU-only server, no error
  assert.deepEqual(await gpuInventory({ nvidiaSmi: join(dir, 'absent') }), { gpus: [] });
  // one that fails says why; one that hangs is cut at the deadline
  const failing = join(dir, 'failing');
  writeFileSync(failing, '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver." >&2\nexit 9\n');
  chmodSync(failing, 0o755);
  const f = await gpuInventory({ nvidiaSmi: failing });
  assert.deepEqual(f.gpus, []);
  assert.match(f.error ?? '', /couldn't communicate with the NVIDIA driver/);
  const hanging = join(dir, 'hanging');
  writeFileSync(hanging, '#!/bin/sh\nexec sleep 30\n');
  chmodSync(hanging, 0o755);
  const started = performance.now();
  assert.match((await gpuInventory({ nvidiaSmi: hanging, timeoutMs: 200 })).error ?? '', /no answer in 200 ms/);
  assert.ok(performance.now() - started < 5_000);
});

test('picking GPUs: free ones, lowest index first; none when too few are free', () => {
  const inv = [{ uuid: 'GPU-c', index: 2, name: '' }, { uuid: 'GPU-a', index: 0, name: '' }, { uuid: 'GPU-b', index: 1, name: '' }];
  assert.deepEqual(pickGpus(inv, new Set(), 2), ['GPU-a', 'GPU-b']);
  assert.deepEqual(pickGpus(inv, new Set(['GPU-a']), 2), ['GPU-b', 'GPU-c']);
  assert.equal(pickGpus(inv, new Set(['GPU-a', 'GPU-c']), 2), undefined);
  assert.equal(pickGpus([], new Set(), 1), undefined);
  assert.deepEqual(heldGpus(`${UUID},GPU-x`), [UUID, 'GPU-x']);
  assert.deepEqual(heldGpus(undefined), []);
});

test('pinning: DeviceRequests for nvidia and cdi, the envs, the labels; no GPUs: NVIDIA_VISIBLE_DEVICES=void', () => {
  const uuids = [UUID, 'GPU-22222222-2222'];
  const spec = { ...baseSpec('ins_g', 'img:1'), gpuNum: 2, envs: [{ key: 'NVIDIA_VISIBLE_DEVICES', value: 'all' }, { key: 'A', value: 'b' }] };
  const nvidia = createBody(spec, { network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'nvidia' }, uuids) as any;
  assert.deepEqual(nvidia.HostConfig.DeviceRequests, [{ Driver: 'nvidia', DeviceIDs: uuids, Capabilities: [['gpu']] }]);
  assert.deepEqual(nvidia.Env, ['A=b', `NVIDIA_VISIBLE_DEVICES=${uuids.join(',')}`, 'CUDA_VISIBLE_DEVICES=0,1']);
  assert.equal(nvidia.Labels[LABEL.gpuUuids], uuids.join(','));
  assert.equal(nvidia.Labels[LABEL.gpus], '2');
  const cdi = createBody(spec, { network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'cdi' }, uuids) as any;
  assert.deepEqual(cdi.HostConfig.DeviceRequests, [{ Driver: 'cdi', DeviceIDs: [`nvidia.com/gpu=${UUID}`, 'nvidia.com/gpu=GPU-22222222-2222'] }]);
  assert.deepEqual(cdi.Env, nvidia.Env);
  // nvidia is the default mode
  assert.deepEqual((createBody(spec, { network: 'gantry', publishHost: '127.0.0.1' }, uuids) as any).HostConfig.DeviceRequests, nvidia.HostConfig.DeviceRequests);
  // a CUDA_VISIBLE_DEVICES of the spec's own is kept (it numbers the container's GPUs); never one left empty by Gantry
  assert.deepEqual(gpuEnvs([{ key: 'CUDA_VISIBLE_DEVICES', value: '1' }], [UUID]), [{ key: 'CUDA_VISIBLE_DEVICES', value: '1' }, { key: 'NVIDIA_VISIBLE_DEVICES', value: UUID }]);
  const none = createBody({ ...spec, gpuNum: 0 }, { network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'nvidia' }) as any;
  assert.equal(none.HostConfig.DeviceRequests, undefined);
  assert.deepEqual(none.Env, ['A=b', 'NVIDIA_VISIBLE_DEVICES=void']);
  assert.equal(none.Labels[LABEL.gpuUuids], '', 'Gantry\'s own (empty) value, never an image\'s');
  assert.deepEqual(deviceRequests([], 'cdi'), []);
});

test('settings: GANTRY_DOCKER_GPU_MODE, GANTRY_DOCKER_GPUS, GANTRY_DOCKER_NVIDIA_SMI', () => {
  const base = { GANTRY_COMPUTE_DRIVER: 'docker' };
  assert.deepEqual(loadConfig(base, '/tmp').computeDriver.settings, {
    host: 'unix:///var/run/docker.sock', network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'nvidia', gpus: undefined, nvidiaSmi: 'nvidia-smi', pidsLimit: 4096,
    localImages: ['localhost/'], privateRegistries: [],
  });
  const s = loadConfig({ ...base, GANTRY_DOCKER_GPU_MODE: 'cdi', GANTRY_DOCKER_GPUS: ` ${UUID} , GPU-22222222-2222`, GANTRY_DOCKER_NVIDIA_SMI: '/usr/bin/nvidia-smi' }, '/tmp').computeDriver.settings;
  assert.deepEqual(s, {
    host: 'unix:///var/run/docker.sock', network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'cdi', gpus: [UUID, 'GPU-22222222-2222'], nvidiaSmi: '/usr/bin/nvidia-smi', pidsLimit: 4096,
    localImages: ['localhost/'], privateRegistries: [],
  });
  assert.deepEqual(parseGpuList('none'), []);
  assert.equal(parseGpuList('0,1'), undefined, 'indices are not stable names');
  assert.equal(parseGpuList(`${UUID},${UUID}`), undefined);
  assert.throws(() => loadConfig({ ...base, GANTRY_DOCKER_GPU_MODE: 'amd', GANTRY_DOCKER_GPUS: '0' }, '/tmp'), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /GANTRY_DOCKER_GPU_MODE/);
    assert.match(err.message, /GANTRY_DOCKER_GPUS must be "none" or a comma list of GPU UUIDs/);
    return true;
  });
});

test('Podman with GPUs: libpod\'s create body says what the Docker body says, the GPUs as CDI devices', () => {
  const spec = {
    ...baseSpec('ins_p', 'img:1'), gpuNum: 1, cpuNum: 2, memoryGb: 1, command: 'serve --port 8000', entrypoint: '/init',
    ports: [{ port: 8000, type: 'http' }, { port: 22, type: 'tcp' }],
    volumes: [{ type: 'network', size: '10', id: 'ns_1', mountPath: '/data' }, { type: 'local', size: '5', id: 'l1', mountPath: '/scratch' }],
  };
  const docker = createBody(spec, { network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'nvidia' }, [UUID]);
  const body = libpodCreateBody('ins_p', docker, [`nvidia.com/gpu=${UUID}`]) as any;
  assert.deepEqual(body, {
    name: 'ins_p', image: 'img:1', entrypoint: ['/init'], command: ['serve', '--port', '8000'],
    env: { HELLO: 'world', NVIDIA_VISIBLE_DEVICES: UUID, CUDA_VISIBLE_DEVICES: '0' },
    labels: (docker as any).Labels, terminal: false, stdin: false,
    netns: { nsmode: 'bridge' }, Networks: { 'gantry-usr_contract': {} },
    portmappings: [
      { container_port: 8000, host_ip: '127.0.0.1', host_port: 0, protocol: 'tcp' },
      { container_port: 22, host_ip: '127.0.0.1', host_port: 0, protocol: 'tcp' },
    ],
    resource_limits: { cpu: { quota: 200_000, period: 100_000 }, memory: { limit: 1024 ** 3, swap: 1024 ** 3 }, pids: { limit: 4096 } },
    volumes: [{ Name: 'gantry-ns-ns_1', Dest: '/data', Options: [] }, { Name: '', Dest: '/scratch', Options: [] }],
    devices: [{ path: `nvidia.com/gpu=${UUID}` }],
    restart_policy: 'no',
    privileged: false, cap_drop: ['ALL'], cap_add: (docker as any).HostConfig.CapAdd, no_new_privileges: true,
  });
  assert.equal(body.labels[LABEL.gpuUuids], UUID);
});

test('a GPU is held only when the engine\'s record of the container names it too: a label alone (an image\'s) holds none', () => {
  const labels = { [LABEL.gpuUuids]: UUID };
  // Docker: the DeviceRequests it was created with (nvidia mode: UUIDs; cdi: CDI names), and Gantry's env
  const docker = { Config: { Labels: labels, Env: [`NVIDIA_VISIBLE_DEVICES=${UUID}`] }, HostConfig: { DeviceRequests: [{ DeviceIDs: [UUID] }] } };
  assert.deepEqual(confirmedGpus(docker), [UUID]);
  assert.deepEqual(confirmedGpus({ ...docker, HostConfig: { DeviceRequests: [{ DeviceIDs: [cdiName(UUID)] }] } }), [UUID], 'a CDI name');
  assert.deepEqual(confirmedGpus({ ...docker, HostConfig: { DeviceRequests: [{ DeviceIDs: ['GPU-22222222-2222'] }] } }), [], 'given another GPU');
  // Podman (libpod: its inspect names no CDI device): Gantry's NVIDIA_VISIBLE_DEVICES, which replaces the image's
  assert.deepEqual(confirmedGpus({ Config: { Labels: labels, Env: [`NVIDIA_VISIBLE_DEVICES=${UUID}`] }, HostConfig: { DeviceRequests: null } }), [UUID]);
  // the forged case: an image's label on a CPU container (Gantry's env says void, no device asked)
  assert.deepEqual(confirmedGpus({ Config: { Labels: labels, Env: ['NVIDIA_VISIBLE_DEVICES=void'] }, HostConfig: { DeviceRequests: null } }), []);
  assert.deepEqual(confirmedGpus({ Config: { Labels: labels, Env: [] } }), []);
  assert.deepEqual(confirmedGpus({ Config: { Labels: {}, Env: [`NVIDIA_VISIBLE_DEVICES=${UUID}`] } }), [], 'nor the env alone');
});
