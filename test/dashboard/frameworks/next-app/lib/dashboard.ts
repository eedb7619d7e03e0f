/**
 * The dashboard of the fixture app, on the store the test names in the environment (the test
 * starts one server per test, on that test's schema or key prefix).
 */
import { initJobQueue } from 'queuedev';
import { createQueueDashboard } from 'queuedev/dashboard';

const env = process.env;

const queue =
  env.QD_NEXT_BACKEND === 'redis'
    ? initJobQueue({ backend: 'redis', redisConfig: { url: env.REDIS_URL }, keyPrefix: env.QD_NEXT_KEY_PREFIX })
    : initJobQueue({
        backend: 'postgres',
        databaseConfig: { connectionString: env.PG_QUEUE_DATABASE },
        schema: env.QD_NEXT_SCHEMA,
      });

export const dashboard = createQueueDashboard({ jobQueue: queue, jobHandlers: {}, basePath: '/admin/jobs' });
