/**
 * An answer the front makes from a cluster answer it read whole: the cluster's status and end-to-end
 * headers (its length, encoding and date aside: the body may have been edited and Node dates it),
 * the given body, and headers of the front's own.
 */
import type { ServerResponse } from 'node:http';
import type { ClusterAnswer } from './cluster-calls.ts';
import { endToEnd } from './hop-by-hop.ts';

const REPLACED = new Set(['content-length', 'content-encoding', 'date']);

export function sendClusterAnswer(res: ServerResponse, from: ClusterAnswer, text = from.text, own: Readonly<Record<string, string>> = {}): true {
  const bytes = Buffer.from(text);
  const headers: string[] = [];
  const lines = endToEnd(from.rawHeaders);
  for (let i = 0; i < lines.length; i += 2) {
    if (!REPLACED.has(lines[i].toLowerCase())) headers.push(lines[i], lines[i + 1]);
  }
  for (const [name, value] of Object.entries(own)) headers.push(name, value);
  headers.push('Content-Length', String(bytes.length));
  res.writeHead(from.status, headers);
  res.end(bytes);
  return true;
}
