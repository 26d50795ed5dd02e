import { Type } from 'typebox';
import { listTemplates, templateView } from '../../../domain/compute/templates.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { GPU_BASE, TemplateView } from './schemas.ts';

export default function listTemplatesRoute(app: App, s: Services): void {
  app.get(`${GPU_BASE}/templates`, {
    config: { auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'List templates: official/community (isMyCommunity=false) or the team\'s private ones (true)', security: KeyBearer,
      querystring: Type.Object({
        pageSize: Type.Optional(Type.Integer({ minimum: 0 })),
        pageNum: Type.Optional(Type.Integer({ minimum: 0 })),
        pageNumber: Type.Optional(Type.Integer({ minimum: 0, description: 'alias of pageNum' })),
        name: Type.Optional(Type.String()),
        type: Type.Optional(Type.String()),
        channel: Type.String(),
        isMyCommunity: Type.Boolean(),
      }),
      response: {
        200: Type.Object({ template: Type.Array(TemplateView), pageSize: Type.Integer(), pageNum: Type.Integer(), total: Type.Integer() }),
        ...errors(400, 401, 403),
      },
    },
  }, async (req) => {
    const qs = req.query;
    const r = await listTemplates(s.ctx, principalOf(req).teamId, {
      channel: qs.channel, isMyCommunity: qs.isMyCommunity, name: qs.name, type: qs.type, pageSize: qs.pageSize, pageNum: qs.pageNum ?? qs.pageNumber,
    });
    return { template: r.rows.map(templateView), pageSize: r.pageSize, pageNum: r.pageNum, total: r.total };
  });
}
