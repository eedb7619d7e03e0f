// The body probe of ../../../../../echo.ts; a static route, so Next.js picks it over the catch-all.
import { echoBody } from '../../../../../../echo';

export const dynamic = 'force-dynamic';
export const POST = echoBody;
