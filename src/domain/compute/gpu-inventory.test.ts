// The match rule between a product's gpuModel and the GPU names nvidia-smi prints, and which
// product each GPU counts for (compat-decisions, GPU compute: products from the inventory).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseGpuQuery } from '../../drivers/docker/gpus.ts';
import { gpuCounts, gpuModelMatches } from './gpu-inventory.ts';

// the name of the H200 the fixtures were captured on (drivers/docker/fixtures/nvidia-smi)
const [H200] = parseGpuQuery(readFileSync(new URL('../../drivers/docker/fixtures/nvidia-smi/idle-query.csv', import.meta.url), 'utf8'));

test('a gpuModel matches a GPU name when it is a run of whole words of it, case and spaces aside', () => {
  assert.equal(H200!.name, 'NVIDIA H200');
  for (const model of ['H200', 'h200', 'NVIDIA H200', ' nvidia  h200 ']) assert.equal(gpuModelMatches(model, H200!.name), true, model);
  for (const model of ['H20', 'H2', '200', 'H200 NVL', 'NVIDIA', 'VIDIA H200', '']) {
    assert.equal(gpuModelMatches(model, H200!.name), model === 'NVIDIA', model);
  }
  // names other NVIDIA servers print (nvidia-smi -L): words are split by spaces and dashes alike
  assert.equal(gpuModelMatches('RTX 4090', 'NVIDIA GeForce RTX 4090'), true);
  assert.equal(gpuModelMatches('A100', 'NVIDIA A100-SXM4-80GB'), true);
  assert.equal(gpuModelMatches('A10', 'NVIDIA A100-SXM4-80GB'), false);
  assert.equal(gpuModelMatches('A100-SXM4-80GB', 'NVIDIA A100-SXM4-80GB'), true);
  assert.equal(gpuModelMatches('H100', ''), false);
});

test('each GPU counts once: for the longest matching gpuModel, then a product on sale, then the lowest id', () => {
  const gpus = [H200!, H200!, { name: 'NVIDIA H100 NVL' }, { name: 'Tesla T4' }];
  const products = [
    { id: 'p_h200', gpuModel: 'H200', available: true },
    { id: 'p_h100', gpuModel: 'H100', available: true },
    { id: 'p_h100nvl', gpuModel: 'H100 NVL', available: true },
  ];
  assert.deepEqual(Object.fromEntries(gpuCounts(products, gpus)), { p_h200: 2, p_h100nvl: 1 });
  // two products of one model: one on sale wins, then the lowest id; the other gets none
  assert.deepEqual(Object.fromEntries(gpuCounts([
    { id: 'b', gpuModel: 'H200', available: true }, { id: 'a', gpuModel: 'h200', available: false }, { id: 'c', gpuModel: 'H200', available: true },
  ], gpus)), { b: 2 });
  assert.deepEqual(gpuCounts(products, []).size, 0);
});
