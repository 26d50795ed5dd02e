// The docker driver's pure parts, without an engine: command lines, image references, the
// create body, inspect → observed phase (Docker's and Podman's answers), the log stream, and
// the settings as the configuration reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config.ts';
import { baseSpec } from '../contract.ts';
import {
  addressOf, portsOf, commandOf, type ContainerInspect, createBody, engineName, engineTimeMs, imagePullQuery, LABEL, libpodCreateBody, LogDemuxer,
  LogLineTimer, observedFromInspect, registryAuthHeader, shellWords, teamNetworkName,
} from './container.ts';
import { KEPT_CAPABILITIES, KEPT_CAPABILITY_NAMES } from './hardening.ts';
import { addressHostOf, type DockerSettings, parseEngineHost } from './settings.ts';

test('a command line is split like a shell would; shell syntax runs through /bin/sh -c', () => {
  assert.deepEqual(shellWords(`sh -c "echo hi; sleep 3600"`), ['sh', '-c', 'echo hi; sleep 3600']);
  assert.deepEqual(shellWords(`python3  -m vllm.entrypoints.openai.api_server --model 'a b' x\\ y ""`), ['python3', '-m', 'vllm.entrypoints.openai.api_server', '--model', 'a b', 'x y', '']);
  assert.deepEqual(shellWords(`echo "a \\"q\\" \\\\ b" 'it''s'`), ['echo', 'a "q" \\ b', 'its']);
  assert.deepEqual(shellWords(`sh -c 'echo $HOME; exit 3'`), ['sh', '-c', 'echo $HOME; exit 3'], 'single quotes keep everything');
  assert.deepEqual(shellWords('key=value#not-a-comment'), ['key=value#not-a-comment']);
  for (const line of ['a && b', 'echo $HOME', 'echo "$HOME"', 'a | b', 'a > f', 'echo *', '# x', '~/run', 'echo `id`', 'echo "open', "echo 'open", 'a\\']) {
    assert.equal(shellWords(line), undefined, line);
  }
  assert.deepEqual(commandOf({ entrypoint: '', command: '' }), {});
  assert.deepEqual(commandOf({ entrypoint: '', command: 'sleep 3600' }), { Cmd: ['sleep', '3600'] });
  assert.deepEqual(commandOf({ entrypoint: '', command: 'cd /app && ./run > log' }), { Cmd: ['/bin/sh', '-c', 'cd /app && ./run > log'] });
  assert.deepEqual(commandOf({ entrypoint: '/init --x', command: 'serve' }), { Entrypoint: ['/init', '--x'], Cmd: ['serve'] });
  assert.deepEqual(commandOf({ entrypoint: '/init', command: '' }), { Entrypoint: ['/init'], Cmd: [] });
  assert.deepEqual(commandOf({ entrypoint: 'cd /app && exec ./run', command: 'a b' }), { Entrypoint: ['/bin/sh', '-c', 'cd /app && exec ./run "$@"', 'sh'], Cmd: ['a', 'b'] });
});

test('image references become a pull query with a tag; registry auth is base64url JSON', () => {
  assert.deepEqual(imagePullQuery('busybox'), { fromImage: 'busybox', tag: 'latest' });
  assert.deepEqual(imagePullQuery('vllm/vllm-openai:v0.6.3'), { fromImage: 'vllm/vllm-openai', tag: 'v0.6.3' });
  assert.deepEqual(imagePullQuery('registry:5000/team/img'), { fromImage: 'registry:5000/team/img', tag: 'latest' });
  assert.deepEqual(imagePullQuery('registry:5000/team/img:1@sha256:abc'), { fromImage: 'registry:5000/team/img:1', tag: 'sha256:abc' });
  const header = registryAuthHeader({ server: 'r.example:5000', username: 'u', password: 'p?>~' });
  assert.doesNotMatch(header, /[+/]/);
  assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { username: 'u', password: 'p?>~', serveraddress: 'r.example:5000' });
});

test('names follow from the id alone', () => {
  assert.equal(engineName('ins_abc123'), 'ins_abc123');
  assert.equal(engineName('wk-abc'), 'wk-abc');
  assert.equal(engineName('a/b'), `gantry-${Buffer.from('a/b').toString('hex')}`);
});

test('the create body: limits, published ports, storage volumes, labels (every one of Gantry\'s, the image\'s emptied), the team\'s network, no restart', () => {
  const spec = {
    ...baseSpec('ins_x', 'img:1'), cpuNum: 2, memoryGb: 1.5, gpuNum: 1,
    ports: [{ port: 8000, type: 'http' }, { port: 22, type: 'tcp' }],
    volumes: [{ type: 'network', size: '10', id: 'ns_1', mountPath: '/data' }, { type: 'local', size: '5', id: 'l1', mountPath: '/scratch' }],
  };
  const body = createBody(spec, { network: 'gantry', publishHost: '127.0.0.1' }, [], { imageLabelKeys: ['io.gantry.gpu-uuids', 'io.gantry.team', 'io.gantry.foo', 'org.opencontainers.image.title'] }) as any;
  assert.deepEqual(body.Cmd, ['sleep', '3600']);
  assert.deepEqual(body.Env, ['HELLO=world', 'NVIDIA_VISIBLE_DEVICES=void'], 'given no GPUs, a default NVIDIA runtime adds none (gpus.test.ts)');
  assert.deepEqual(body.ExposedPorts, { '8000/tcp': {}, '22/tcp': {} });
  assert.deepEqual(body.HostConfig.PortBindings['8000/tcp'], [{ HostIp: '127.0.0.1', HostPort: '' }]);
  assert.equal(body.HostConfig.NanoCpus, 2e9);
  assert.equal(body.HostConfig.Memory, 1.5 * 1024 ** 3);
  assert.equal(body.HostConfig.MemorySwap, body.HostConfig.Memory);
  assert.equal(body.HostConfig.NetworkMode, 'gantry-usr_contract', 'the team\'s own network');
  assert.deepEqual(body.HostConfig.RestartPolicy, { Name: 'no' });
  assert.deepEqual(body.HostConfig.Mounts, [{ Type: 'volume', Source: 'gantry-ns-ns_1', Target: '/data' }, { Type: 'volume', Target: '/scratch' }]);
  assert.deepEqual(body.Labels, {
    [LABEL.managed]: 'true', [LABEL.id]: 'ins_x', [LABEL.role]: 'instance', [LABEL.endpoint]: '', [LABEL.cluster]: 'cls_local', [LABEL.team]: 'usr_contract',
    [LABEL.gpus]: '1', [LABEL.gpuUuids]: '', [LABEL.ports]: '8000,22', [LABEL.portTypes]: 'http,tcp', [LABEL.rootfsGb]: '1',
    [LABEL.volumeGb]: '{"/data":10,"/scratch":5}', 'io.gantry.foo': '',
  }, 'every label Gantry reads is its own (empty without a value); the image\'s other io.gantry.* ones are emptied, others left alone');
  assert.equal(LABEL.team, 'io.gantry.team');
  assert.equal(teamNetworkName('gantry', 'usr_01abc'), 'gantry-usr_01abc');
  assert.equal(teamNetworkName('gantry', 'a/b'), `gantry-x${Buffer.from('a/b').toString('hex')}`, 'a team id that is no name: hex');
});

test('the create body confines the container: capabilities dropped to a short list, no new privileges, default seccomp, a PID limit', () => {
  const h = (createBody(baseSpec('ins_x', 'img:1'), { network: 'gantry', publishHost: '127.0.0.1', pidsLimit: 512 }) as any).HostConfig;
  assert.deepEqual(h.CapDrop, ['ALL']);
  assert.deepEqual(h.CapAdd, ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'NET_BIND_SERVICE']);
  for (const gone of ['MKNOD', 'NET_RAW', 'SETFCAP', 'SETPCAP', 'SYS_CHROOT', 'AUDIT_WRITE', 'SYS_ADMIN', 'NET_ADMIN']) assert.ok(!h.CapAdd.includes(gone), gone);
  assert.ok(KEPT_CAPABILITY_NAMES.every((c) => KEPT_CAPABILITIES[c].length > 20), 'each kept capability says why');
  assert.deepEqual(h.SecurityOpt, ['no-new-privileges'], 'and no seccomp=unconfined: the engine\'s default profile');
  assert.equal(h.Privileged, false);
  // nothing of the host's: no host namespace, path or device (GPUs come by DeviceRequests or CDI only)
  assert.deepEqual([h.PidMode, h.IpcMode, h.UTSMode, h.UsernsMode, h.Binds, h.Devices, h.VolumesFrom], [undefined, undefined, undefined, undefined, undefined, undefined, undefined]);
  assert.equal(h.NetworkMode, 'gantry-usr_contract');
  assert.equal(h.PidsLimit, 512);
  assert.equal((createBody(baseSpec('ins_x', 'img:1'), { network: 'gantry', publishHost: '127.0.0.1' }) as any).HostConfig.PidsLimit, 4096, 'the default');
  assert.equal(h.StorageOpt, undefined, 'no quota asked unless the engine keeps one');
  const quota = (createBody({ ...baseSpec('ins_x', 'img:1'), rootfsGb: 20 }, { network: 'gantry', publishHost: '127.0.0.1' }, [], { rootfsQuota: true }) as any).HostConfig;
  assert.deepEqual(quota.StorageOpt, { size: '20480M' });
  // Podman's libpod create (GPUs) says the same
  const lp = libpodCreateBody('ins_x', createBody(baseSpec('ins_x', 'img:1'), { network: 'gantry', publishHost: '127.0.0.1', pidsLimit: 512 }, [], { rootfsQuota: true }), []) as any;
  assert.deepEqual([lp.cap_drop, lp.cap_add, lp.no_new_privileges, lp.privileged, lp.resource_limits.pids, lp.storage_opts], [['ALL'], h.CapAdd, true, false, { limit: 512 }, { size: '1024M' }]);
});

test('a worker\'s port is never published: it answers at the container\'s address on its team\'s network', () => {
  const spec = { ...baseSpec('wk-1', 'img:1'), worker: { endpointId: 'ep_1', health: { path: '/', initialDelay: 0, period: 1, timeout: 1, successThreshold: 1, failureThreshold: 1 } } };
  const body = createBody(spec, { network: 'gantry', publishHost: '10.0.0.5' }) as any;
  assert.deepEqual(body.HostConfig.PortBindings, {});
  assert.deepEqual(body.ExposedPorts, { '8080/tcp': {} });
  assert.equal(body.Labels[LABEL.endpoint], 'ep_1');
  assert.deepEqual((libpodCreateBody('wk-1', body, []) as any).portmappings, []);
  const running: ContainerInspect = {
    Id: 'c', State: { Status: 'running' }, Config: { Labels: body.Labels }, HostConfig: { NetworkMode: 'gantry-usr_contract' },
    NetworkSettings: { Ports: { '8080/tcp': null }, Networks: { 'gantry-usr_contract': { IPAddress: '172.18.0.3' } } },
  };
  assert.deepEqual(portsOf(running, '10.0.0.5'), [{ port: 8080, type: 'http', endpoint: '172.18.0.3:8080' }]);
  assert.equal(addressOf({ ...running, NetworkSettings: { Networks: { 'gantry-usr_contract': { IPAddress: '' } } } }, '10.0.0.5'), undefined, 'no address yet');
});

function inspect(state: Partial<ContainerInspect['State']>, memory = 0): ContainerInspect {
  return {
    Id: 'c1',
    State: { Status: 'exited', ExitCode: 0, OOMKilled: false, Error: '', StartedAt: '2026-11-27T19:00:00.123456789Z', FinishedAt: '2026-11-27T19:01:00.5Z', ...state },
    Config: { Labels: { [LABEL.managed]: 'true', [LABEL.ports]: '8080,9090' } },
    HostConfig: { Memory: memory },
    NetworkSettings: { Ports: { '9090/tcp': [{ HostIp: '127.0.0.1', HostPort: '40001' }], '8080/tcp': [{ HostIp: '0.0.0.0', HostPort: '40000' }] } },
  };
}

test('inspect → observed: running, stopping, stopped, crashed, OOM (Podman says OOMKilled=false), a failed start', () => {
  const docker = { stopAsked: false, engine: 'docker' as const };
  const podman = { stopAsked: false, engine: 'podman' as const };
  const started = Date.parse('2026-11-27T19:00:00.123Z');
  const ended = Date.parse('2026-11-27T19:01:00.500Z');
  assert.deepEqual(observedFromInspect(inspect({ Status: 'running' }), docker), { phase: 'running', startedAtMs: started });
  assert.deepEqual(observedFromInspect(inspect({ Status: 'running' }), { ...docker, stopAsked: true }), { phase: 'stopping' });
  assert.deepEqual(observedFromInspect(inspect({ Status: 'created' }), docker), { phase: 'starting' });
  assert.deepEqual(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137 }, 1 << 30), { ...podman, stopAsked: true }), { phase: 'stopped', endedAtMs: ended });
  assert.deepEqual(observedFromInspect(inspect({ Status: 'exited', ExitCode: 0 }), docker), { phase: 'stopped', endedAtMs: ended }, 'ended by itself, successfully');
  assert.deepEqual(observedFromInspect(inspect({ Status: 'exited', ExitCode: 3 }), docker), { phase: 'failed', reason: 'crashed', message: 'exited with code 3', endedAtMs: ended });
  assert.match(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137, OOMKilled: true }, 64 << 20), docker).message!, /out of memory.*64 MiB/);
  assert.match(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137 }, 1 << 30), podman).message!, /out of memory.*1 GiB/);
  assert.equal(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137 }, 1 << 30), docker).message, 'exited with code 137', 'Docker says when it was OOM');
  assert.equal(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137 }), podman).message, 'exited with code 137', 'no limit, no OOM');
  const noExec = observedFromInspect(inspect({ Status: 'created', ExitCode: 127, Error: 'exec: "nope": executable file not found in $PATH' }), docker);
  assert.equal(noExec.reason, 'crashed');
  assert.match(noExec.message!, /could not start: exec: "nope"/);
  assert.equal(observedFromInspect(inspect({ Status: 'created' }), { ...podman, startError: 'no such file' }).phase, 'failed');
  assert.deepEqual(observedFromInspect(inspect({ Status: 'removing' }), docker), { phase: 'deleting' });
  // stopped for a disk limit: stopping while the kill comes, then failed with the breach (a stop asked meanwhile wins)
  const limitBreach = 'its root filesystem holds 24 MiB written, over its rootfsSize of 16 MiB';
  assert.deepEqual(observedFromInspect(inspect({ Status: 'running' }), { ...docker, limitBreach }), { phase: 'stopping' });
  assert.deepEqual(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137 }, 1 << 30), { ...podman, limitBreach }), {
    phase: 'failed', reason: 'disk_limit_exceeded', message: limitBreach, endedAtMs: ended,
  });
  assert.equal(observedFromInspect(inspect({ Status: 'exited', ExitCode: 137 }), { ...docker, limitBreach, stopAsked: true }).phase, 'stopped');
  assert.equal(engineTimeMs('0001-01-01T00:00:00Z'), undefined);
  assert.equal(engineTimeMs('2026-11-27T19:00:00+02:00'), Date.parse('2026-11-27T17:00:00Z'));
});

test('address: the first port of the spec, on the publish host (or the address host for 0.0.0.0)', () => {
  assert.equal(addressOf(inspect({ Status: 'running' }), '10.0.0.5'), '10.0.0.5:40000', 'bound on 0.0.0.0: the address host');
  const c = inspect({ Status: 'running' });
  c.Config!.Labels![LABEL.ports] = '9090,8080';
  assert.equal(addressOf(c, '10.0.0.5'), '127.0.0.1:40001');
  assert.equal(addressOf(inspect({ Status: 'exited' }), '10.0.0.5'), undefined);
  // ports(): every port in the spec's order with its type (tcp for a container made before the types label)
  c.Config!.Labels![LABEL.portTypes] = 'tcp,http';
  assert.deepEqual(portsOf(c, '10.0.0.5'), [{ port: 9090, type: 'tcp', endpoint: '127.0.0.1:40001' }, { port: 8080, type: 'http', endpoint: '10.0.0.5:40000' }]);
  assert.deepEqual(portsOf(inspect({ Status: 'running' }), '::1').map((p) => [p.type, p.endpoint]), [['tcp', '[::1]:40000'], ['tcp', '127.0.0.1:40001']]);
  assert.deepEqual(portsOf(inspect({ Status: 'exited' }), '10.0.0.5'), []);
  assert.equal(addressHostOf({ host: 'unix:///run/docker.sock', network: 'gantry', publishHost: '127.0.0.1' }), '127.0.0.1');
  assert.equal(addressHostOf({ host: 'tcp://gpu-1.lan:2375', network: 'gantry', publishHost: '0.0.0.0' }), 'gpu-1.lan');
  assert.equal(addressHostOf({ host: 'unix:///run/docker.sock', network: 'gantry', publishHost: '::' }), '127.0.0.1');
});

function frame(stream: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = stream;
  head.writeUInt32BE(payload.length, 4);
  return Buffer.concat([head, payload]);
}

test('logs: frames are taken apart however the chunks cut them; a TTY stream is taken as it is', () => {
  const all = Buffer.concat([frame(1, '2026-11-27T19:00:00.100000000Z out\n'), frame(2, '2026-11-27T19:00:00.200000000Z err\n')]);
  for (let cut = 1; cut < all.length; cut += 7) {
    const d = new LogDemuxer();
    assert.equal(d.push(all.subarray(0, cut)) + d.push(all.subarray(cut)), '2026-11-27T19:00:00.100000000Z out\n2026-11-27T19:00:00.200000000Z err\n');
  }
  const tty = new LogDemuxer();
  assert.equal(tty.push(Buffer.from('2026-11-27T19:00:00.1Z hi\n')), '2026-11-27T19:00:00.1Z hi\n');
});

test('logs: times strictly increase within a second (bursts, Podman\'s whole seconds), the same on every read', () => {
  const t = new LogLineTimer();
  assert.deepEqual(t.line('2026-11-27T19:00:00.123456789Z hello world'), { atMs: Date.parse('2026-11-27T19:00:00.123Z'), line: 'hello world' });
  assert.deepEqual(t.line('2026-11-27T19:00:00.123999999Z \r'), { atMs: Date.parse('2026-11-27T19:00:00.124Z'), line: '' }, 'a burst: the next ms');
  assert.deepEqual(t.line('2026-11-27T19:00:00.120000000Z out of order'), { atMs: Date.parse('2026-11-27T19:00:00.125Z'), line: 'out of order' });
  assert.deepEqual(t.line('2026-11-27T19:00:00.999999999Z last'), { atMs: Date.parse('2026-11-27T19:00:00.999Z'), line: 'last' });
  assert.deepEqual(t.line('2026-11-27T19:00:00.999999999Z past the second'), { atMs: Date.parse('2026-11-27T19:00:00.999Z'), line: 'past the second' }, 'capped at the second');
  assert.deepEqual(t.line('2026-11-27T19:00:01.000000001Z next'), { atMs: Date.parse('2026-11-27T19:00:01.000Z'), line: 'next' });
  const s = Date.parse('2026-11-27T19:00:01Z');
  const rows = ['2026-11-27T19:00:01Z a', '2026-11-27T19:00:01Z b', '2026-11-27T19:00:01Z c', '2026-11-27T19:00:02Z d'];
  const p = new LogLineTimer();
  assert.deepEqual(rows.map((r) => p.line(r)), [
    { atMs: s, line: 'a' }, { atMs: s + 1, line: 'b' }, { atMs: s + 2, line: 'c' }, { atMs: s + 1000, line: 'd' },
  ]);
  const again = new LogLineTimer();
  assert.deepEqual(rows.map((r) => again.line(r)!.atMs), [s, s + 1, s + 2, s + 1000], 'a read from the same second gives the same times');
});

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/tmp');
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

test('settings: GANTRY_COMPUTE_DRIVER=docker reads the engine address, network and publish host', () => {
  assert.deepEqual(loadConfig({ GANTRY_COMPUTE_DRIVER: 'docker' }, '/tmp').computeDriver, {
    kind: 'docker', settings: {
      host: 'unix:///var/run/docker.sock', network: 'gantry', publishHost: '127.0.0.1', gpuMode: 'nvidia', gpus: undefined, nvidiaSmi: 'nvidia-smi', pidsLimit: 4096,
      localImages: ['localhost/'], privateRegistries: [],
    },
  });
  assert.deepEqual(loadConfig({ GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: 'tcp://10.0.0.2:2375', GANTRY_DOCKER_NETWORK: 'gpu', GANTRY_DOCKER_PUBLISH_HOST: '0.0.0.0' }, '/tmp').computeDriver.settings, {
    host: 'tcp://10.0.0.2:2375', network: 'gpu', publishHost: '0.0.0.0', gpuMode: 'nvidia', gpus: undefined, nvidiaSmi: 'nvidia-smi', pidsLimit: 4096,
    localImages: ['localhost/'], privateRegistries: [],
  });
  assert.equal((loadConfig({ GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_PIDS_LIMIT: '512' }, '/tmp').computeDriver.settings as DockerSettings).pidsLimit, 512);
  assert.deepEqual(problems({
    GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: 'docker.sock', GANTRY_DOCKER_NETWORK: '-x', GANTRY_DOCKER_PUBLISH_HOST: 'example.com', GANTRY_DOCKER_PIDS_LIMIT: '0',
  }), [
    'GANTRY_DOCKER_HOST must be unix:///path/to/socket or tcp://host:port, got "docker.sock"',
    'GANTRY_DOCKER_NETWORK must be a network name prefix (1-64 letters, digits, _ . -), got "-x"',
    'GANTRY_DOCKER_PUBLISH_HOST must be an IP address of this host (0.0.0.0: every interface), got "example.com"',
    'GANTRY_DOCKER_PIDS_LIMIT must be an integer in [16, 4194304], got "0"',
  ]);
  assert.deepEqual(parseEngineHost('unix:///run/podman/podman.sock'), { origin: 'http://docker', socketPath: '/run/podman/podman.sock' });
  assert.deepEqual(parseEngineHost('tcp://[::1]:2375'), { origin: 'http://[::1]:2375', host: '::1' });
  assert.deepEqual(parseEngineHost('tcp://gpu-1'), { origin: 'http://gpu-1:2375', host: 'gpu-1' });
  assert.equal(parseEngineHost('tcp://gpu-1:99999'), undefined);
  assert.equal(parseEngineHost('https://gpu-1:2376'), undefined);
});
