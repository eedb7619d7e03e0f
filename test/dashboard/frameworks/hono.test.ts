/**
 * The dashboard in Hono on Node.js (@hono/node-server): Hono speaks Request/Response, so the
 * handlers mount as they are, with the routes docs/dashboard.md shows.
 */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { BASE_PATH, describeMount, inProcess, listen } from './support.js';

describeMount(
  'Hono',
  inProcess(async (dashboard) => {
    const app = new Hono();
    app.get('/health', (c) => c.text('ok'));
    app.on(['GET', 'POST'], [BASE_PATH, `${BASE_PATH}/*`], (c) =>
      c.req.method === 'POST' ? dashboard.POST(c.req.raw) : dashboard.GET(c.req.raw),
    );
    const listener = getRequestListener(app.fetch);
    return listen(createServer((req, res) => void listener(req, res)));
  }),
);
