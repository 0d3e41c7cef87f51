/** Failures of a hostile run, grouped so that one bug hit a hundred times is listed once, with its first request. */
import type { HostileRequest } from './requests.ts';

export interface Failure {
  request: HostileRequest;
  status: number | string;
  problem: string;
  body: string;
}

/** One line per distinct failure: the problem, the status, the route and method, how often, and the first request and answer. */
export function distinctFailures(failures: readonly Failure[]): string[] {
  const groups = new Map<string, { first: Failure; count: number }>();
  for (const failure of failures) {
    const key = `${failure.problem} ${failure.status} ${failure.request.method} ${failure.request.route} ${bodyHead(failure.body, 80)}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { first: failure, count: 1 });
  }
  return [...groups.values()].map(({ first, count }) => {
    const { request } = first;
    const sent = request.body ? ` body ${bodyHead(Buffer.from(request.body).toString('utf8'), 160)}` : '';
    return `${first.problem} (${first.status}) ×${count}: ${request.method} ${request.target.slice(0, 200)} [${request.route}]${sent} -> ${bodyHead(first.body, 300)}`;
  });
}

function bodyHead(text: string, length: number): string {
  return JSON.stringify(text.length > length ? `${text.slice(0, length)}…` : text);
}
