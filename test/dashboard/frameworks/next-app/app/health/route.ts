// A route of the application's own, beside the dashboard.
export const dynamic = 'force-dynamic';
export const GET = (): Response => new Response('ok');
