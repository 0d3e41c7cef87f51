/**
 * The paging page at `/_deeppage/`: plain files from `ui/` beside the routes (`src/http/ui/`, copied
 * to `dist/http/ui/` in the compiled server `npm start` runs), read once when the routes are
 * made. A request names a file only as a key of {@link UI_FILES}; no part of a request path ever
 * reaches the filesystem. Elasticsearch never answers under `/_deeppage` (index names cannot start
 * with `_`), so the prefix is deeppage's own.
 *
 * @example
 * const res = await app.request('/_deeppage/app.js'); // text/javascript, with an ETag to revalidate
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { EsError } from '../../engine/errors.ts';
import { pathOf } from '../request-uri.ts';
import { PRODUCT_HEADER } from '../respond.ts';

const UI_PREFIX = '/_deeppage';

/** Every file the page is made of, by the name it is served under, with its content type. */
const UI_FILES: Readonly<Record<string, string>> = Object.freeze({
  'index.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'chart.js': 'text/javascript; charset=utf-8',
  'search.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
});

/**
 * The page loads nothing from elsewhere and runs no inline script or style; the favicon is a `data:` URL
 * (else the browser asks for `/favicon.ico`, which is no file here).
 */
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

interface UiFile {
  /** Text, which no response can alter (a shared byte array could be handed on and detached). */
  body: string;
  headers: Readonly<Record<string, string>>;
  etag: string;
}

/** The files as served, read from `../ui/` now: a missing file stops the server from starting. */
function readUiFiles(): ReadonlyMap<string, UiFile> {
  const files = new Map<string, UiFile>();
  for (const [name, contentType] of Object.entries(UI_FILES)) {
    const body = readFileSync(new URL(`../ui/${name}`, import.meta.url), 'utf8');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    const headers = {
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(body)),
      // Names carry no version, so a browser asks again each time; the ETag makes that a 304 until a restart serves new files.
      'cache-control': 'no-cache',
      etag,
      'x-content-type-options': 'nosniff',
      ...PRODUCT_HEADER,
      ...(contentType.startsWith('text/html') && { 'content-security-policy': CONTENT_SECURITY_POLICY }),
    };
    files.set(name, { body, headers, etag });
  }
  return files;
}

/**
 * A name that is not one of the page's files is a 404, in ES's error shape as every error here is:
 * `/_deeppage/` is a folder of files, so "no such file" is the true answer, where the app's 400 `no
 * handler found` would claim the request was malformed (and `/_deeppage/_search` would otherwise
 * reach the search routes as an index named `_deeppage`).
 */
function noSuchFile(c: Context): EsError {
  return new EsError(404, 'resource_not_found_exception', `no file [${pathOf(c)}] in the paging page`);
}

/** Whether an `If-None-Match` list names `etag` (compared weakly, as RFC 9110 says for GET) or is `*`. */
function namesEtag(header: string | undefined, etag: string): boolean {
  return header !== undefined && header.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag);
}

/** The page reads everything through the HTTP API, so the engine is not used here. */
export function uiRoutes(engine: Engine): Hono {
  void engine;
  const app = new Hono();
  const files = readUiFiles();

  const serve = (c: Context, name: string) => {
    const file = files.get(name);
    if (!file) throw noSuchFile(c);
    if (namesEtag(c.req.header('if-none-match'), file.etag)) return new Response(null, { status: 304, headers: { etag: file.etag, 'cache-control': 'no-cache', ...PRODUCT_HEADER } });
    return new Response(file.body, { status: 200, headers: file.headers });
  };

  // Relative, so that the page's own relative URLs (`app.js`, `../_search`) resolve under the folder, behind a proxy's prefix too.
  app.get(UI_PREFIX, (c) => new Response(null, { status: 301, headers: { location: `${UI_PREFIX.slice(1)}/${new URL(c.req.url).search}`, ...PRODUCT_HEADER } }));
  app.get(`${UI_PREFIX}/`, (c) => serve(c, 'index.html'));
  app.get(`${UI_PREFIX}/:file`, (c) => serve(c, c.req.param('file')));
  app.get(`${UI_PREFIX}/*`, (c) => {
    throw noSuchFile(c);
  });
  return app;
}
