import { Type } from 'typebox';
import { getInstanceMetrics, KEEP_MS, MIN_INTERVAL_S } from '../../../domain/compute/metrics.ts';
import { errors, KeyBearer, UNIX_SECONDS_MAX } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { Compute } from '../../../domain/compute/compute.ts';

const Point = Type.Object({ timestamp: Type.String({ description: 'the bucket\'s start, Unix seconds' }), value: Type.Number({ description: 'percent, the bucket\'s average' }) });
const Series = Type.Array(Point);
const GpuSeries = Type.Object({
  avg: Series,
  gpuIds: Type.Array(Type.Object({ gpuId: Type.String({ description: 'the GPU\'s UUID' }), items: Series })),
});
const Seconds = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: UNIX_SECONDS_MAX, description }));

// The real service's path (not under /gpu-instance), answered in the GPU family's words.
export default function getInstanceMetricsRoute(app: App, s: { compute: Compute }): void {
  app.get('/openapi/v1/metrics/gpu/instance', {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-instances'], security: KeyBearer,
      summary: `An instance's CPU, memory and GPU utilization over time, percent, averaged into buckets of \`interval\` seconds (sampled every 15 s, kept ${KEEP_MS / 86_400_000} days; empty series on a driver that does not measure)`,
      querystring: Type.Object({
        instanceId: Type.String({ minLength: 1 }),
        startTime: Seconds('Unix seconds; default endTime − 60'),
        endTime: Seconds('Unix seconds; default now'),
        interval: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 * 7, description: `seconds, at least ${MIN_INTERVAL_S}; default ${MIN_INTERVAL_S}` })),
      }),
      response: {
        200: Type.Object({ cpuUtilization: Series, memUtilization: Series, rootDiskUtilization: Series, gpuUtilization: GpuSeries, gpuMemUtilization: GpuSeries }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => getInstanceMetrics(s.compute, principalOf(req).teamId, req.query));
}
