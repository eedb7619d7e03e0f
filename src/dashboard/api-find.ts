/**
 * The dashboard's routes for finding jobs beyond the list itself (the list's filters are parsed
 * by parseJobFilter in api.ts): the job types for the type input's suggestions.
 */
import { requireNonEmptyString } from '../validation.js';
import { jsonResponse } from './http.js';
import type { RouteDef } from './route.js';

/**
 * GET /api/job-types?prefix → 200 { jobTypes }: the distinct job types starting with `prefix`
 * (every type without one), sorted, at most 1,000 (queue.getJobTypes).
 */
export const findRoutes: RouteDef[] = [
  {
    pattern: /^\/api\/job-types$/,
    GET: async ({ config, params }) => {
      const raw = params.get('prefix');
      const prefix = raw ? requireNonEmptyString('prefix', raw) : '';
      return jsonResponse(200, { jobTypes: await config.queue.getJobTypes(prefix) });
    },
  },
];
