/** The dashboard in Fastify 5 through the `fastifyDashboard` plugin, beside a JSON route of the application's own. */
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { fastifyDashboard, type QueueDashboard } from '../../../src/dashboard/index.js';
import { forEachBackend } from '../../helpers/backends.js';
import { dashboardWithEcho, describeMount, inProcess, listen, send } from './support.js';

async function serveFastify(dashboard: QueueDashboard) {
  const app = Fastify();
  app.get('/health', async () => 'ok');
  // Parsed by Fastify's own JSON parser, which the plugin leaves in place outside its scope.
  app.post('/parsed', async (request) => ({ parsed: request.body }));
  await app.register(fastifyDashboard(dashboard));
  await app.ready();
  return listen(app.server);
}

describeMount('Fastify', inProcess(serveFastify));

forEachBackend('fastifyDashboard', (ctx) => {
  it('leaves the application’s body parsers in place outside the plugin', async () => {
    const server = await serveFastify(dashboardWithEcho(ctx.queue));
    try {
      const reply = await send(server.origin, '/parsed', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"a":1}',
      });
      expect(reply.json()).toEqual({ parsed: { a: 1 } });
    } finally {
      await server.close();
    }
  });
});
