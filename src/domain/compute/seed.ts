// First-start catalogue: one cluster, one GPU product with inventory, and the official
// templates, so a newcomer can create an instance at once (on the sim driver by default).
import type { Ctx } from '../context.ts';
import { setInventory, upsertCluster, upsertProduct } from './catalogue.ts';
import { publishTemplate } from './templates.ts';

export const SEED_CLUSTER_ID = 'cls_local';
export const SEED_PRODUCT_ID = 'prd_rtx4090_24g';

export async function seedCompute(ctx: Ctx): Promise<void> {
  // network storage works out of the box: $0.07 per GB-month (shown; storage is not billed yet)
  await upsertCluster(ctx, {
    id: SEED_CLUSTER_ID, name: 'local', region: 'local-1', supportNetworkStorage: true, supportInstanceNetwork: false, storagePrice: 700n,
  });
  await upsertProduct(ctx, {
    id: SEED_PRODUCT_ID, name: 'RTX 4090 24GB', gpuModel: 'RTX 4090', cpuPerGpu: 16, memoryPerGpu: 62, diskPerGpu: 200,
    minRootfs: 10, maxRootfs: 500,
    price: 3500n, spotPrice: 1750n, monthlyPrice: 2_000_000n, // units: $0.35/GPU-h, $0.175 spot, $200/GPU-month
    billingMethods: ['onDemand', 'monthly', 'spot'], nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-GeForce-RTX-4090' },
  });
  await setInventory(ctx, SEED_PRODUCT_ID, SEED_CLUSTER_ID, 64);
  await publishTemplate(ctx, 'tpl_official_pytorch', {
    name: 'PyTorch 2.5 (CUDA 12.4)', type: 'instance', channel: 'official',
    readme: '# PyTorch\n\nPyTorch 2.5 with CUDA 12.4 and cuDNN 9, JupyterLab on port 8888.',
    image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime', rootfsSize: 60,
    startCommand: 'jupyter lab --ip=0.0.0.0 --port=8888 --allow-root --no-browser',
    ports: [{ type: 'http', ports: [8888] }], envs: [{ key: 'JUPYTER_TOKEN', value: '' }], minCudaVersion: '12.4',
    tools: [{ name: 'Jupyter', describe: 'JupyterLab notebook', port: 8888, type: 'http' }],
    recommendCards: [{ gpuSpecId: SEED_PRODUCT_ID, cardNum: '1' }],
  });
  await publishTemplate(ctx, 'tpl_official_vllm', {
    name: 'vLLM OpenAI-compatible server', type: 'instance', channel: 'official',
    readme: '# vLLM\n\nServes `MODEL` with an OpenAI-compatible API on port 8000.',
    image: 'vllm/vllm-openai:v0.6.4', rootfsSize: 100,
    entrypoint: 'python3 -m vllm.entrypoints.openai.api_server',
    startCommand: '--model $MODEL --host 0.0.0.0 --port 8000',
    ports: [{ type: 'http', ports: [8000] }], envs: [{ key: 'MODEL', value: 'Qwen/Qwen2.5-7B-Instruct' }], minCudaVersion: '12.1',
    tools: [{ name: 'OpenAI API', describe: 'OpenAI-compatible HTTP API', port: 8000, type: 'http' }],
    recommendCards: [{ gpuSpecId: SEED_PRODUCT_ID, cardNum: '1' }, { gpuSpecId: SEED_PRODUCT_ID, cardNum: '2' }],
  });
}
