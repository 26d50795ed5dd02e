import { Type } from 'typebox';
import { clusterNames, requireInstance } from '../../../domain/compute/instances.ts';
import { instanceDetailView } from '../../../domain/compute/instance-view.ts';
import { hasLog, instanceLogUrl } from '../../../domain/compute/log-reader.ts';
import { terminalUrl, type Terminals } from '../../../domain/terminals/terminals.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { GPU_BASE } from './schemas.ts';
import type { Compute } from '../../../domain/compute/compute.ts';
import type { Serverless } from '../../../domain/serverless/service.ts';
import { jupyterComponent } from '../../../gateway/ports/jupyter.ts';
import { portLinks, type Ports } from '../../../gateway/ports/ports.ts';
import type { SshGateway } from '../../../gateway/ssh/server.ts';

export default function getInstanceRoute(app: App, s: { compute: Compute; serverless: Serverless; terminals: Terminals; ports: Ports; ssh: SshGateway }): void {
  app.get(`${GPU_BASE}/gpu/instance`, {
    config: { family: 'gpu', auth: { kind: 'key', capability: 'readCompute' } },
    schema: {
      tags: ['gpu-instances'], summary: 'Get an instance (not wrapped) with connection details', security: KeyBearer,
      querystring: Type.Object({ instanceId: Type.String({ minLength: 1 }) }),
      response: { 200: Type.Object({}, { additionalProperties: true }), ...errors(400, 401, 403) },
    },
  }, async (req) => {
    const row = await requireInstance(s.compute, principalOf(req).teamId, req.query.instanceId);
    // log URLs share the base of the serverless ones (GANTRY_PUBLIC_URL)
    const logUrl = (await hasLog(s.compute, row.id)) ? instanceLogUrl(s.serverless.settings.publicBaseUrl, row.id) : '';
    // the terminal's URL carries a ticket of this caller's, for a few minutes (domain/terminals)
    const p = principalOf(req);
    return instanceDetailView(row, (await clusterNames(s.compute)).get(row.clusterId), logUrl, terminalUrl(s.terminals, p, row), await jupyterComponent(s.ports, p, row), portLinks(s.ports, p, row), s.ssh.view(p, row));
  });
}
