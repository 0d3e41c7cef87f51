/**
 * The paging page at `/_deeppage/`: plain files from `ui/` beside the routes (`src/http/ui/`, copied
 * to `dist/http/ui/` in the compiled server `npm start` runs), read once when the routes are
 * made. A request names a file only as a key of {@link UI_FILES}; no part of a request path ever
 * reaches the filesystem. Elasticsearch never answers under `/_deeppage` (index names cannot start
 * with `_`), so the prefix is deeppage's own. A front serves the same files through
 * {@link readUiPage} (front/front-page.ts), so both answer alike.
 *
 * @example
 * const res = await app.request('/_deeppage/app.js'); // text/javascript, with an ETag to revalidate
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono, type Context } from 'hono';
import { EsError } from '../../engine/errors.ts';
import { pathOf } from '../request-uri.ts';
import { PRODUCT_HEADER } from '../respond.ts';

export const UI_PREFIX = '/_deeppage';

/** Every file the page is made of, by the name it is served under, with its content type. */
const UI_FILES: Readonly<Record<string, string>> = Object.freeze({
  'index.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'chart.js': 'text/javascript; charset=utf-8',
  'search.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'depth.js': 'text/javascript; charset=utf-8',
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

/** An answer of the page, for whichever server writes it: the engine's routes below or the front (front/front-page.ts). */
export interface UiAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string | null;
}

/** The page's files, read once, with the headers every answer carries besides its own. */
export interface UiPage {
  /** The file served under `name` (`index.html` for the folder itself), 304 when `ifNoneMatch` names its ETag; undefined for a name that is no file. */
  file(name: string, ifNoneMatch: string | undefined): UiAnswer | undefined;
  /** The bare prefix, sent to the folder with the query (`search`, `?` included or empty) kept. */
  folder(search: string): UiAnswer;
}

/**
 * The files as served, read from `../ui/` now: a missing file stops the server from starting.
 * `ownHeaders` go on every answer: the engine's {@link PRODUCT_HEADER}, and nothing for a front,
 * where the product is the cluster's to claim.
 */
export function readUiPage(ownHeaders: Readonly<Record<string, string>>): UiPage {
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
      ...ownHeaders,
      ...(contentType.startsWith('text/html') && { 'content-security-policy': CONTENT_SECURITY_POLICY }),
    };
    files.set(name, { body, headers, etag });
  }
  return {
    file(name, ifNoneMatch) {
      const file = files.get(name);
      if (!file) return undefined;
      if (namesEtag(ifNoneMatch, file.etag)) return { status: 304, headers: { etag: file.etag, 'cache-control': 'no-cache', ...ownHeaders }, body: null };
      return { status: 200, headers: file.headers, body: file.body };
    },
    // Relative, so that the page's own relative URLs (`app.js`, `../_search`) resolve under the folder, behind a proxy's prefix too.
    folder: (search) => ({ status: 301, headers: { location: `${UI_PREFIX.slice(1)}/${search}`, ...ownHeaders }, body: null }),
  };
}

/**
 * A name that is not one of the page's files is a 404, in ES's error shape as every error here is:
 * `/_deeppage/` is a folder of files, so "no such file" is the true answer, where the app's 400 `no
 * handler found` would claim the request was malformed (and `/_deeppage/_search` would otherwise
 * reach the search routes as an index named `_deeppage`). `path` as sent, percent-encoding kept.
 */
export function noSuchFile(path: string): EsError {
  return new EsError(404, 'resource_not_found_exception', `no file [${path}] in the paging page`);
}

/** Whether an `If-None-Match` list names `etag` (compared weakly, as RFC 9110 says for GET) or is `*`. */
function namesEtag(header: string | undefined, etag: string): boolean {
  return header !== undefined && header.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag);
}

const toResponse = ({ status, headers, body }: UiAnswer) => new Response(body, { status, headers });

/** The engine's routes for the page, which needs no engine: it reads everything through the HTTP API. */
export function uiRoutes(): Hono {
  const app = new Hono();
  const page = readUiPage(PRODUCT_HEADER);

  const serve = (c: Context, name: string) => {
    const answer = page.file(name, c.req.header('if-none-match'));
    if (!answer) throw noSuchFile(pathOf(c));
    return toResponse(answer);
  };

  app.get(UI_PREFIX, (c) => toResponse(page.folder(new URL(c.req.url).search)));
  app.get(`${UI_PREFIX}/`, (c) => serve(c, 'index.html'));
  app.get(`${UI_PREFIX}/:file`, (c) => serve(c, c.req.param('file')));
  app.get(`${UI_PREFIX}/*`, (c) => {
    throw noSuchFile(pathOf(c));
  });
  return app;
}
