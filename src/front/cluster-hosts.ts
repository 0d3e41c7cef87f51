/**
 * The fronted cluster's hosts, the order a request tries them in, and one keep-alive connection pool
 * per host (TLS with the configured CAs for https hosts).
 *
 * A request starts at the host that answered last; a host that refuses a connection hands the lead
 * to the next one, for every request after it, until that one fails in turn. The order wraps, so
 * every host is tried once per request.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { illegalArgument } from '../engine/errors.ts';
import type { FrontSettings } from '../engine/node-settings.ts';

export interface ClusterHost {
  url: URL;
  /** The URL's path, put before every request's, without its trailing slash ('' for none). */
  prefix: string;
  agent: HttpAgent;
}

export class ClusterHosts {
  readonly hosts: readonly ClusterHost[];
  private lead = 0;

  constructor(settings: Pick<FrontSettings, 'hosts' | 'certificateAuthorities'>) {
    const ca = settings.certificateAuthorities === undefined ? undefined : readAuthorities(settings.certificateAuthorities);
    this.hosts = settings.hosts.map((url) => ({
      url,
      prefix: url.pathname.replace(/\/+$/, ''),
      agent: url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, noDelay: true, ca }) : new HttpAgent({ keepAlive: true, noDelay: true }),
    }));
  }

  /** Every host once, the lead first. */
  inTurn(): ClusterHost[] {
    const { hosts, lead } = this;
    return hosts.map((_, i) => hosts[(lead + i) % hosts.length]);
  }

  /** `host` answered: it leads. */
  answered(host: ClusterHost): void {
    this.lead = this.hosts.indexOf(host);
  }

  /** `host` refused or could not be reached: the next host leads, unless another took the lead meanwhile. */
  failed(host: ClusterHost): void {
    const at = this.hosts.indexOf(host);
    if (at === this.lead) this.lead = (at + 1) % this.hosts.length;
  }

  close(): void {
    for (const { agent } of this.hosts) agent.destroy();
  }
}

/** The PEM file of `front.ssl.certificate_authorities`, refused as ES refuses an SSL file it cannot read. */
function readAuthorities(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : (error as Error).message;
    throw illegalArgument(`failed to load SSL configuration [front.ssl] - cannot read configured PEM certificate_authorities [${path}] because ${why}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw illegalArgument(`failed to load SSL configuration [front.ssl] - the file [${path}] of certificate_authorities holds no PEM certificate`);
  return pem;
}
