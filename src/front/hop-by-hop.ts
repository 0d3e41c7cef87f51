/**
 * Which header fields stay on one connection (RFC 9110 §7.6.1) and so are never forwarded: Connection
 * and every field it names, Keep-Alive, Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade. Headers
 * are kept as Node's raw lists (`[name, value, name, value, …]`), so names keep their case, repeated
 * fields stay separate and their order holds.
 *
 * @example
 * endToEnd(['Connection', 'close, X-Trace', 'X-Trace', '1', 'Accept', '*\/*']) // ['Accept', '*\/*']
 */

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The fields of a raw header list that are end to end, in order; `also` names more to drop (lower case). */
export function endToEnd(raw: readonly string[], also: ReadonlySet<string> = new Set()): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() !== 'connection') continue;
    for (const token of raw[i + 1].split(',')) named.add(token.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || name.startsWith('proxy-') || named.has(name) || also.has(name)) continue;
    kept.push(raw[i], raw[i + 1]);
  }
  return kept;
}
