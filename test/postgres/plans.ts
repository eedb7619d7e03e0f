/**
 * Reading the work of a statement from its plans, for the plan tests: rows every node produced
 * or threw away, times its loops. `EXPLAIN` shows a function called by the statement as one
 * node; `plansWithNested` also returns the plans of the statements run inside it.
 */
import type pg from 'pg';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** Rows produced or discarded by every node, over all its loops. */
export const rowWork = (plan: PlanNode): number =>
  nodes(plan).reduce(
    (sum, n) =>
      sum +
      n['Actual Loops'] *
        (n['Actual Rows'] +
          (n['Rows Removed by Filter'] ?? 0) +
          (n['Rows Removed by Join Filter'] ?? 0) +
          (n['Rows Removed by Index Recheck'] ?? 0)),
    0,
  );

/**
 * Runs `text` on `client` (for real: wrap it in a transaction to roll back) with auto_explain
 * reporting the executed plan of the statement and of every statement run inside the functions
 * it calls. Returns those plans, the statement's own last.
 */
export async function plansWithNested(client: pg.PoolClient, text: string, values: unknown[]): Promise<PlanNode[]> {
  await client.query(`LOAD 'auto_explain'`);
  for (const setting of [
    'log_min_duration = 0',
    'log_nested_statements = on',
    'log_analyze = on',
    'log_format = json',
    'log_level = notice',
  ]) {
    await client.query(`SET LOCAL auto_explain.${setting}`);
  }
  const plans: PlanNode[] = [];
  const collect = (notice: { message?: string }) => {
    const json = /plan:\s*(\{[\s\S]*\})\s*$/.exec(notice.message ?? '')?.[1];
    if (json) plans.push((JSON.parse(json) as { Plan: PlanNode }).Plan);
  };
  client.on('notice', collect);
  try {
    await client.query(text, values);
  } finally {
    client.off('notice', collect);
    await client.query('SET LOCAL auto_explain.log_min_duration = -1');
  }
  return plans;
}
