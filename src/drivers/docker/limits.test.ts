// Which running container is over a disk limit, from the engine's listing and its
// `/system/df` answer (limits.ts): the shapes are the engines' own (Docker's and Podman's
// listings carry Mounts with the volume name and destination; df the containers' SizeRw and
// the volumes' sizes). The engines tier proves the kill (isolation.engines.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL } from './labels.ts';
import { bytesText, diskBreaches } from './limits.ts';

const MIB = 1024 ** 2;
const labels = (id: string, rootfsGb: number, volumes: Record<string, number> = {}) => ({
  [LABEL.managed]: 'true', [LABEL.id]: id, [LABEL.rootfsGb]: String(rootfsGb), [LABEL.volumeGb]: JSON.stringify(volumes),
});

test('the root filesystem over its rootfsGb, a volume over its size (network storage named), others within', () => {
  const containers = [
    { Id: 'c1', Names: ['/ins_a'], Labels: labels('ins_a', 16 / 1024) },
    { Id: 'c2', Names: ['/ins_b'], Labels: labels('ins_b', 1, { '/mnt/shared': 16 / 1024 }), Mounts: [{ Type: 'volume', Name: 'gantry-ns-nst_1', Destination: '/mnt/shared' }] },
    { Id: 'c3', Names: ['/wk-c'], Labels: labels('wk-c', 1, { '/scratch': 16 / 1024 }), Mounts: [{ Type: 'volume', Name: '3c7feb', Destination: '/scratch' }] },
    { Id: 'c4', Names: ['/ins_d'], Labels: labels('ins_d', 1, { '/mnt/shared': 1 }), Mounts: [{ Type: 'volume', Name: 'gantry-ns-nst_2', Destination: '/mnt/shared' }] },
    { Id: 'c5', Names: ['/ins_e'], Labels: { ...labels('ins_e', 1), [LABEL.volumeGb]: 'not json' } },
    { Id: 'c6', Names: ['/old'], Labels: { [LABEL.managed]: 'true', [LABEL.id]: 'ins_old' } }, // made before the limit labels: none to hold
  ];
  const df = {
    Containers: [{ Id: 'c1', SizeRw: 24 * MIB }, { Id: 'c2', SizeRw: 10 }, { Id: 'c3', SizeRw: 0 }, { Id: 'c4', SizeRw: 1 }, { Id: 'c5', SizeRw: 5 }, { Id: 'c6', SizeRw: 99 * 1024 * MIB }],
    Volumes: [
      { Name: 'gantry-ns-nst_1', UsageData: { Size: 20 * MIB } }, { Name: '3c7feb', UsageData: { Size: 17 * MIB } },
      { Name: 'gantry-ns-nst_2', UsageData: { Size: 20 * MIB } }, { Name: 'gantry-stop-x', UsageData: { Size: -1 } },
    ],
  };
  assert.deepEqual(diskBreaches(containers, df), [
    { id: 'ins_a', name: 'ins_a', message: 'its root filesystem holds 24 MiB written, over its rootfsSize of 16 MiB' },
    { id: 'ins_b', name: 'ins_b', message: 'the volume at /mnt/shared (network storage nst_1) holds 20 MiB, over its size of 16 MiB' },
    { id: 'wk-c', name: 'wk-c', message: 'the volume at /scratch holds 17 MiB, over its size of 16 MiB' },
  ]);
  assert.deepEqual(diskBreaches(containers, {}), [], 'nothing measured, nothing over');
  assert.equal(bytesText(1.2 * 1024 ** 3), '1.2 GiB');
});
