/**
 * The floor of a hop: the plainest Node reverse proxy there is, for the front's pass-through to be
 * set beside. Every request goes to CLUSTER_URL as it came (method, target, headers), its body and
 * the answer streamed, over a kept-alive pool with Nagle off, as the front's own pool is
 * (src/front/cluster-hosts.ts). No failover, no header hygiene, no limits: it is not a front, only
 * what crossing one more Node process costs on this machine. Run as a child by the front suite;
 * HOST and PORT (0 = a free port) from the environment; prints `plain-proxy listening on <url>` once
 * it listens and exits 0 on SIGTERM.
 */
import { Agent, createServer, request } from 'node:http';

const cluster = new URL(process.env.CLUSTER_URL ?? 'http://127.0.0.1:9200');
const agent = new Agent({ keepAlive: true, noDelay: true });

const server = createServer((req, res) => {
  const upstream = request({ hostname: cluster.hostname, port: cluster.port, method: req.method, path: req.url, headers: { ...req.headers, host: cluster.host }, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
const hostname = process.env.HOST ?? '127.0.0.1';
server.listen(Number(process.env.PORT ?? 0), hostname, () => {
  const address = server.address();
  console.error(`plain-proxy listening on http://${hostname}:${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => {
  agent.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
