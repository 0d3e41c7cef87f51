/**
 * What every answer to a hostile request must be: below 500; with the product header the official
 * client checks; a HEAD without a body; any other body JSON; a 4xx in Elasticsearch's error shape,
 * `{"error":{"root_cause":[…],"type":…,"reason":…},"status":N}` with N the HTTP status, unless it is
 * one of the few 4xx answers ES gives in the API's own shape (a missing document, nothing freed, a
 * health wait that timed out, a reindex with failures, a missing alias); a `_cat` success may be text, and the browser page's files are HTML, CSS and JS.
 */

export interface Answer {
  status: number;
  /** Header values by lower-case name. */
  header(name: string): string | undefined;
  body: string;
}

/** What is wrong with the answer to a request of `method` to `target`, or undefined if nothing is. */
export function problemWith(method: string, target: string, answer: Answer): string | undefined {
  const { status, body } = answer;
  if (status >= 500) return `status ${status}`;
  if (answer.header('x-elastic-product') !== 'Elasticsearch') return 'no X-Elastic-Product header';
  if (method === 'HEAD') return body === '' ? undefined : 'a HEAD answer with a body';
  // The _cat APIs answer text tables (and `help`) unless asked for JSON; their errors are JSON.
  const catText = status < 300 && /^\/_cat(\/|\?|$)/.test(target) && answer.header('content-type') === 'text/plain; charset=UTF-8';
  if (catText) return undefined;
  // The browser page's files (and its redirect) are what they are.
  if (status < 400 && /^\/_deeppage(\/|\?|$)/.test(target)) return undefined;
  if (!/^application\/(json|vnd\.elasticsearch\+json)/.test(answer.header('content-type') ?? '')) return `content type ${answer.header('content-type')}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'a body that is not JSON';
  }
  if (status < 400) return undefined;
  if (isApiShaped4xx(status, parsed)) return undefined;
  // `filter_path` trims those answers as it trims a 2xx (errors it leaves whole).
  if (/[?&]filter(_|%5F)path=/i.test(target) && isRecord(parsed) && !('error' in parsed) && status !== 400) return undefined;
  return errorShapeProblem(status, parsed);
}

function errorShapeProblem(status: number, body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return 'a 4xx without an error object';
  if (body.status !== status) return `"status" ${JSON.stringify(body.status)} in a ${status} answer`;
  const { error } = body;
  if (typeof error.type !== 'string' || error.type === '') return 'an error without a type';
  if (typeof error.reason !== 'string') return 'an error without a reason';
  if (!Array.isArray(error.root_cause) || error.root_cause.length === 0) return 'an error without root causes';
  if (!error.root_cause.every((cause) => isRecord(cause) && typeof cause.type === 'string' && typeof cause.reason === 'string')) return 'a root cause without type or reason';
  return undefined;
}

/** ES's 4xx answers that are not errors: GET and DELETE of a missing document, a clear that freed nothing, a health wait that timed out, a reindex with failures. */
function isApiShaped4xx(status: number, body: unknown): boolean {
  // `GET _alias/{name}` for a missing alias: ES's own body, a string `error` beside what was found.
  if (status === 404 && isRecord(body) && typeof body.error === 'string' && /^alias(es)? \[.*\] missing$/.test(body.error) && body.status === 404) return true;
  if (!isRecord(body) || 'error' in body) return false;
  if (status === 404) return body.found === false || body.result === 'not_found' || (body.succeeded !== undefined && body.num_freed === 0);
  if (status === 408) return body.timed_out === true;
  return Array.isArray(body.failures) && typeof body.took === 'number';
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
