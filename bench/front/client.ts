/**
 * One connection to a server, kept alive, one request at a time: each answer's status, headers,
 * body and latency (ms, from writing the request to the answer's last byte). The front suite times
 * with it rather than autocannon because it reads every answer's `X-Deeppage-*` headers: which
 * state answered a page (warm or cold) and how many cluster requests it took.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { WrongAnswer } from '../lib/suite.ts';

export interface Call {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: string;
  /** Default `application/json` when there is a body. */
  contentType?: string;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  ms: number;
}

const TIMEOUT_MS = 120_000;

export class Connection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  constructor(readonly base: string) {}

  send(call: Call): Promise<Answer> {
    const target = new URL(call.path, this.base);
    const headers: Record<string, string | number> = {};
    if (call.body !== undefined) {
      headers['content-type'] = call.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(call.body);
    }
    return new Promise<Answer>((resolve, reject) => {
      const started = performance.now();
      const req = request(target, { method: call.method, headers, agent: this.agent, timeout: TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const ms = performance.now() - started;
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', (error) => reject(new Error(`${call.method} ${target.href}: ${error.message}`)));
      req.end(call.body);
    });
  }

  /** A call that must answer `status` (default 200), its body parsed. */
  async json<T>(call: Call, status = 200): Promise<{ body: T; answer: Answer }> {
    const answer = await this.send(call);
    if (answer.status !== status) throw new WrongAnswer(`${call.method} ${this.base}${call.path}: status ${answer.status}, expected ${status}: ${answer.body.slice(0, 300)}`);
    return { body: JSON.parse(answer.body) as T, answer };
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `use` with a connection to `base`, closed afterwards. */
export async function withConnection<T>(base: string, use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = new Connection(base);
  try {
    return await use(connection);
  } finally {
    connection.close();
  }
}
