/**
 * Elasticsearch's integer settings (`Setting.intSetting` with a minimum): a decimal integer from
 * `min` to 2³¹−1, refused in ES's words. Node settings (node-settings.ts) and the front's
 * (src/front/front-settings.ts) read their counts here, so the message exists once.
 *
 * @example
 * intSetting('search.max_open_scroll_context', '500') // 500
 * intSetting('front.max_open_pits', '0', 1)           // throws: Failed to parse value [0] for setting [front.max_open_pits] must be >= 1
 */
import { illegalArgument } from './errors.ts';

export function intSetting(name: string, value: string, min = 0): number {
  const n = /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= min)) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}] must be >= ${min}`);
  if (n > 2 ** 31 - 1) throw illegalArgument(`Failed to parse value [${value}] for setting [${name}] must be <= ${2 ** 31 - 1}`);
  return n;
}
