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

describeMount(
  'Koa after a body parser',
  inProcess(async (dashboard) => {
    const app = new Koa();
    // What Koa body parsers do: read the stream and set ctx.request.body. The adapter hands it on.
    app.use(async (ctx, next) => {
      if (ctx.is('application/json')) {
        const chunks: Buffer[] = [];
        for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
        (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      }
      await next();
    });
    app.use(koaDashboard(dashboard));
    app.use((ctx) => {
      if (ctx.path === '/health') ctx.body = 'ok';
    });
    const listener = app.callback();
    return listen(createServer((req, res) => void listener(req, res)));
  }),
);
