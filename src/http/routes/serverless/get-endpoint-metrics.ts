import { Type } from 'typebox';
import { endpointMetricsSeries, MAX_RANGE_S, METRIC_STEPS } from '../../../domain/serverless/metrics-series.ts';
import { errors, KeyBearer, UNIX_SECONDS_MAX } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from '../compute/schemas.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';
import type { ServerlessPlane } from '../../../domain/serverless/plane.ts';

const UnixSeconds = (description: string) => Type.Integer({ minimum: 0, maximum: UNIX_SECONDS_MAX, description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Mean = (what: string) => Type.Number({ minimum: 0, description: `${what}: mean over the reconciler passes of the bucket (two decimals)` });

export default function getEndpointMetricsRoute(app: App, s: { serverless: Serverless; serverlessRuntime: ServerlessPlane }): void {
  const { metrics } = s.serverlessRuntime;
  app.get(`${GPU_BASE}/endpoint/metrics`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['serverless'], security: KeyBearer,
      summary: `Requests and workers of an endpoint over time (Gantry extension): one point per minute (range at most ${MAX_RANGE_S.minute / 3600} h) or hour (${MAX_RANGE_S.hour / 86_400} days); kept 30 days`,
      querystring: Type.Object({
        id: Type.String({ minLength: 1, description: 'endpoint id' }),
        step: Type.Optional(Type.String({ description: `${METRIC_STEPS.join(' | ')} (default minute)` })),
        startTime: Type.Optional(UnixSeconds('Unix seconds (default: an hour before endTime by minute, a day by hour)')),
        endTime: Type.Optional(UnixSeconds('Unix seconds (default: now)')),
      }),
      response: {
        200: Type.Object({
          step: Type.String(), startTime: Type.Integer(), endTime: Type.Integer(),
          data: Type.Array(Type.Object({
            time: Type.Integer({ description: 'the bucket\'s start, Unix seconds (UTC)' }),
            answered: Count('requests a worker answered with a status below 500'),
            failed: Count('requests answered 5xx by a worker, or ended by Gantry (queue full, queue timeout, worker unreachable, cut at requestTimeout)'),
            waitingMean: Mean('requests waiting for a worker'), waitingPeak: Count('most requests waiting for a worker at one pass'),
            running: Mean('workers running'), starting: Mean('workers pending, creating, pulling or starting'), desired: Mean('workers the autoscaler wanted'),
          })),
        }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => {
    // this replica's counts first, so a read sees its own requests at once; other replicas' within their flush interval
    await metrics.flush();
    return endpointMetricsSeries(s.serverless, principalOf(req).teamId, req.query);
  });
}
