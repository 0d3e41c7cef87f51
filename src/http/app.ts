/**
 * The HTTP API: Elasticsearch's paths, parameters and shapes over an {@link Engine}.
 *
 * @example
 * const app = createApp({ engine });
 * const res = await app.request('/cities/_search?size=5&sort=population:desc');
 */
import { Hono } from 'hono';
import type { Engine } from '../engine/engine.ts';
import { badRequest, EsError, toEsError } from '../engine/errors.ts';
import { escapeRegExp } from '../engine/patterns.ts';
import type { Authenticator } from './auth/authenticator.ts';
import { authentication } from './auth/middleware.ts';
import { dotSegmentError } from './dot-segments.ts';
import { BODY_LIMIT, bodyTooLarge, incomingOf } from './request-body.ts';
import { Slab } from './json-bytes.ts';
import { sendError, withoutProductHeader } from './respond.ts';
import { aliasRoutes } from './routes/aliases.ts';
import { bulkRoutes } from './routes/bulk.ts';
import { catRoutes } from './routes/cat.ts';
import { clusterRoutes } from './routes/cluster.ts';
import { cursorRoutes } from './routes/cursors.ts';
import { documentRoutes } from './routes/documents.ts';
import { indexRoutes } from './routes/indices.ts';
import { multiRoutes } from './routes/multi.ts';
import { nodeRoutes } from './routes/nodes.ts';
import { reindexRoutes } from './routes/reindex.ts';
import { searchRoutes } from './routes/search.ts';
import { securityRoutes } from './routes/security.ts';
import { statsRoutes } from './routes/stats.ts';
import { tasksRoutes } from './routes/tasks.ts';
import { uiRoutes } from './routes/ui.ts';
import { pathOf } from './request-uri.ts';
import { MemoRouter } from './route-memo.ts';
import { Turns, TURNS } from './turns.ts';

export interface AppOptions {
  engine: Engine;
  /** Largest request body accepted, in bytes (ES's `http.max_content_length`, 100 MB by default). */
  maxBodyBytes?: number;
  clusterName?: string;
  /** Checks every request's credentials; without one, security is off (server.ts decides, see auth/security-mode.ts). */
  authenticator?: Authenticator;
}

/** What the app keeps per request: the body limit request-body.ts reads bodies under, and the turns it waits for. */
export type AppEnv = { Variables: { [BODY_LIMIT]: number; [TURNS]: Turns } };

export function createApp({ engine, maxBodyBytes = 100 * 1024 * 1024, clusterName = 'deeppage', authenticator }: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new MemoRouter() });
  const turns = new Turns();
  // The bytes of answers written as JSON bytes (json-bytes.ts), handed to the routes that write them
  // rather than kept per request: a fifth variable on the context costs its map a rehash a request.
  const slab = new Slab();

  // Around everything else, so that it sees every answer (an authentication failure's too).
  if (engine.settings.distribution === 'opensearch') app.use(withoutProductHeader);
  // First, as ES authenticates a request once its headers are in: an unauthenticated client learns nothing else.
  if (authenticator) app.use(authentication(authenticator));

  app.use((c, next) => {
    // A declared length over the limit is refused before anything is read; request-body.ts counts
    // the bytes of a chunked body as it reads them. (Read from Node's request: asking the web
    // Request for its body would build a full undici Request for every call, GETs included.)
    c.set(BODY_LIMIT, maxBodyBytes);
    c.set(TURNS, turns);
    const incoming = incomingOf(c);
    const length = incoming ? incoming.headers['content-length'] : c.req.header('content-length');
    if (length !== undefined && Number(length) > maxBodyBytes) return Promise.resolve(sendError(c, bodyTooLarge(maxBodyBytes)));
    // `.` and `..` segments are seen only in the target as sent: the URL routed on has them resolved away.
    const dots = incoming?.url && dotSegmentError(incoming.url, c.req.method);
    if (dots) return Promise.resolve(sendError(c, dots));
    // The body counts against the parent breaker from now until the answer is made.
    let release: () => void;
    try {
      release = engine.breaker.reserveInFlight(length === undefined ? 0 : Number(length) || 0);
    } catch (error) {
      return Promise.resolve(sendError(c, toEsError(error)));
    }
    // The request's work waits for its turn (turns.ts), and so does the work after its body is in (request-body.ts).
    return turns
      .take()
      .then(next)
      .finally(release);
  });

  // Underscore endpoints go first, so that `/_search` is never taken for an index named `_search`.
  if (authenticator) app.route('/', securityRoutes());
  app.route('/', clusterRoutes(engine, clusterName));
  app.route('/', catRoutes(engine, clusterName));
  app.route('/', uiRoutes());
  app.route('/', bulkRoutes(engine, slab));
  app.route('/', cursorRoutes(engine, slab));
  app.route('/', aliasRoutes(engine));
  app.route('/', searchRoutes(engine, slab));
  app.route('/', multiRoutes(engine, slab));
  app.route('/', statsRoutes(engine, clusterName));
  app.route('/', nodeRoutes(engine, clusterName));
  app.route('/', tasksRoutes(engine.tasks));
  app.route('/', reindexRoutes(engine));
  app.route('/', documentRoutes(engine));
  app.route('/', indexRoutes(engine));

  const routes = app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, pattern: routePattern(r.path) }));
  app.notFound((c) => {
    const path = pathOf(c);
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      const reason = `Incorrect HTTP method for uri [${path}] and method [${c.req.method}], allowed: [${allowed.sort().join(', ')}]`;
      return sendError(c, new EsError(405, 'method_not_allowed_exception', reason));
    }
    return sendError(c, badRequest('illegal_argument_exception', `no handler found for uri [${path}] and method [${c.req.method}]`));
  });
  app.onError((error, c) => {
    const es = toEsError(error);
    if (es.status >= 500) console.error(error);
    return sendError(c, es);
  });
  return app;
}

/** A route path such as `/:index/_doc/:id` as a regular expression over request paths. */
function routePattern(path: string): RegExp {
  const body = path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : escapeRegExp(part))).join('/');
  return new RegExp(`^${body || '/'}$`);
}
