/**
 * The body probe every mount serves at `basePath/test/echo`: it reads its JSON body with the
 * dashboard's bounded reader and answers it back as `{ received }`. The dashboard's own routes
 * read no body yet, so this shows whether a body crosses each adapter intact and within the limit.
 * Plain module (no test runner import): the Next.js fixture app imports it too.
 */
import { errorResponse } from '../../../src/dashboard/errors.js';
import { jsonResponse } from '../../../src/dashboard/http.js';
import { readJsonBody } from '../../../src/dashboard/route.js';

export async function echoBody(request: Request): Promise<Response> {
  try {
    return jsonResponse(200, { received: await readJsonBody(request) });
  } catch (err) {
    return errorResponse(err);
  }
}
