/**
 * The paging page at `/_deeppage/` in front mode: the engine's files, answered as the engine's route
 * answers them (http/routes/ui.ts: the same bytes and headers, ETag and 304, the 301 from the bare
 * prefix, ES-shaped 404s for any other name, 405 for a method other than GET and HEAD), but without
 * `X-Elastic-Product`: the front claims no product; the cluster's own answers say what it is. The
 * prefix is deeppage's own (no index name starts with `_`), so nothing under it goes to the cluster.
 *
 * @example
 * const page = frontPage();
 * createServer((req, res) => page(req, res) || through(req, res));
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EsError, illegalArgument } from '../engine/errors.ts';
import { noSuchFile, readUiPage, UI_PREFIX, type UiAnswer } from '../http/routes/ui.ts';
import { sendError } from './pass-through.ts';

/** A handler that answers a request under `/_deeppage` and returns true, or returns false for any other path. */
export function frontPage(): (req: IncomingMessage, res: ServerResponse) => boolean {
  const page = readUiPage({});
  return (req, res) => {
    const target = req.url ?? '/';
    const question = target.indexOf('?');
    const path = question < 0 ? target : target.slice(0, question);
    if (path !== UI_PREFIX && !path.startsWith(`${UI_PREFIX}/`)) return false;
    req.resume();
    const method = req.method ?? 'GET';
    // The engine's routes: the prefix, the folder and one name in it; anything deeper is a name that is no file.
    const name = path === UI_PREFIX ? undefined : path.slice(UI_PREFIX.length + 1);
    const routed = name === undefined || !name.includes('/');
    if (method !== 'GET' && method !== 'HEAD') {
      if (!routed) sendError(res, illegalArgument(`no handler found for uri [${path}] and method [${method}]`));
      else sendError(res, new EsError(405, 'method_not_allowed_exception', `Incorrect HTTP method for uri [${path}] and method [${method}], allowed: [GET, HEAD]`));
      return true;
    }
    if (name === undefined) return send(res, page.folder(question < 0 || question === target.length - 1 ? '' : target.slice(question)));
    const file = routed ? decoded(name === '' ? 'index.html' : name) : undefined;
    const answer = file === undefined ? undefined : page.file(file, req.headers['if-none-match']);
    if (answer === undefined) sendError(res, noSuchFile(path));
    else send(res, answer);
    return true;
  };
}

function decoded(name: string): string | undefined {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, { status, headers, body }: UiAnswer): true {
  res.writeHead(status, headers);
  res.end(body ?? undefined);
  return true;
}
