/** The dashboard in Express 5 through `toNodeHandler`, mounted with `app.use(basePath, ...)`. */
import { createServer } from 'node:http';
import express from 'express';
import { toNodeHandler } from '../../../src/dashboard/index.js';
import { BASE_PATH, describeMount, inProcess, listen } from './support.js';

describeMount(
  'Express',
  inProcess(async (dashboard) => {
    const app = express();
    app.get('/health', (_req, res) => void res.send('ok'));
    // Mounted: Express strips BASE_PATH from req.url; the adapter reads req.originalUrl.
    app.use(BASE_PATH, toNodeHandler(dashboard));
    return listen(createServer(app));
  }),
);

describeMount(
  'Express after a JSON body parser',
  inProcess(async (dashboard) => {
    const app = express();
    // The application parses JSON bodies before the dashboard: the adapter hands on req.body.
    app.use(express.json({ limit: '5mb' }));
    app.get('/health', (_req, res) => void res.send('ok'));
    app.use(BASE_PATH, toNodeHandler(dashboard));
    return listen(createServer(app));
  }),
);
