/**
 * The framework ceiling: a bare Hono app on @hono/node-server answering `GET /` with
 * `{"hello":"world"}`, run as a child process by the http suite (bench/http/child-server.ts).
 * HOST and PORT (0 = a free port) come from the environment; it prints `hello-world listening on
 * <url>` to stderr once it listens and exits 0 on SIGTERM.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ hello: 'world' }));

const hostname = process.env.HOST ?? '127.0.0.1';
const server = serve({ fetch: app.fetch, hostname, port: Number(process.env.PORT ?? 0) }, (info) => {
  console.error(`hello-world listening on http://${hostname}:${info.port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
