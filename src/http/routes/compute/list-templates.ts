import { Type } from 'typebox';
import { MAX_PAGE_NUM, MAX_PAGE_SIZE, listTemplates, templateView } from '../../../domain/compute/templates.ts';
import { errors, Int32, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE, TemplateView } from './schemas.ts';
import type { Ctx } from '../../../domain/context.ts';

export default function listTemplatesRoute(app: App, s: { ctx: Ctx }): void {
  app.get(`${GPU_BASE}/templates`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-templates'], summary: 'List templates: official/community (isMyCommunity=false) or the team\'s private ones (true); newest first', security: KeyBearer,
      querystring: Type.Object({
        pageSize: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_SIZE, description: 'missing or 0 reads as 10' })),
        pageNum: Type.Optional(Int32({ minimum: 0, maximum: MAX_PAGE_NUM, description: '1-based; missing or 0 reads as 1' })),
        pageNumber: Type.Optional(Int32({ minimum: 0, description: 'alias of pageNum (its range)' })),
        name: Type.Optional(Type.String({ description: 'fuzzy, 0-255 characters' })),
        type: Type.Optional(Type.String()),
        channel: Type.Optional(Type.String({ description: 'official, community, private, or a comma-joined list; missing: all three' })),
        isMyCommunity: Type.Optional(Type.Boolean({ description: 'true: the team\'s private templates; false: official and community ones; missing: as each channel says' })),
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
