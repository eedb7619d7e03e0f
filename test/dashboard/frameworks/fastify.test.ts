/** The dashboard in Fastify 5 through the `fastifyDashboard` plugin, beside a JSON route of the application's own. */
import Fastify from 'fastify';
import { fastifyDashboard } from '../../../src/dashboard/index.js';
import { describeMount, inProcess, listen } from './support.js';

describeMount(
  'Fastify',
  inProcess(async (dashboard) => {
    const app = Fastify();
    app.get('/health', async () => 'ok');
    // The application's parsers stay as they are outside the plugin.
    app.post('/parsed', async (request) => request.body);
    await app.register(fastifyDashboard(dashboard));
    await app.ready();
    return listen(app.server);
  }),
);
