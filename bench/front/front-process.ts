/**
 * A front process and the one connection the suite talks to it on; `restart` replaces both (a cold
 * front, for when `POST /_front/_refresh` does not bring the cold state back).
 */
import type { ChildServer } from '../lib/child-server.ts';
import { Connection } from './client.ts';
import { startFront } from './servers.ts';

export class FrontProcess {
  private constructor(
    readonly clusterUrl: string,
    private server: ChildServer,
    public connection: Connection,
    readonly settings: string[],
    private readonly log: (line: string) => void,
  ) {}

  static async start(clusterUrl: string, log: (line: string) => void): Promise<FrontProcess> {
    const front = await startFront(clusterUrl, log);
    return new FrontProcess(clusterUrl, front.server, new Connection(front.server.url), front.settings, log);
  }

  get url(): string {
    return this.server.url;
  }

  async restart(): Promise<void> {
    await this.stop();
    const front = await startFront(this.clusterUrl, this.log);
    this.server = front.server;
    this.connection = new Connection(front.server.url);
  }

  async stop(): Promise<void> {
    this.connection.close();
    await this.server.stop();
  }
}

/** Runs `use` with a front before `clusterUrl`, stopped afterwards whatever happens. */
export async function withFront<T>(clusterUrl: string, log: (line: string) => void, use: (front: FrontProcess) => Promise<T>): Promise<T> {
  const front = await FrontProcess.start(clusterUrl, log);
  try {
    return await use(front);
  } finally {
    await front.stop();
  }
}
