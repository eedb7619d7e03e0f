/** Applies the shipped migrations (migrations/*.sql) to `schema`, creating it when missing. */
export async function migrate(options: { databaseUrl: string; schema?: string; direction?: 'up' | 'down' }): Promise<void> {
  void options;
  throw new Error('not implemented yet');
}
