/** The dashboard in Koa 3 through the `koaDashboard` middleware, after a middleware of the application's own. */
import { createServer } from 'node:http';
import Koa from 'koa';
import { koaDashboard } from '../../../src/dashboard/index.js';
import { describeMount, inProcess, listen } from './support.js';

describeMount(
  'Koa',
  inProcess(async (dashboard) => {
    const app = new Koa();
    app.use(koaDashboard(dashboard));
    app.use((ctx) => {
      if (ctx.path === '/health') ctx.body = 'ok';
    });
    const listener = app.callback();
    return listen(createServer((req, res) => void listener(req, res)));
  }),
);
