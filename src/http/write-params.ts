/** Parameters shared by the write endpoints: `refresh`, `routing`, `op_type`. */
import type { RefreshPolicy } from '../engine/engine.ts';
import { illegalArgument } from '../engine/errors.ts';

/** ES: `?refresh` and `?refresh=true` refresh at once, `wait_for` waits for the next refresh. */
export function refreshPolicy(value: string | undefined): RefreshPolicy {
  if (value === undefined || value === 'false') return 'false';
  if (value === '' || value === 'true') return 'true';
  if (value === 'wait_for') return 'wait_for';
  throw illegalArgument(`Unknown value for refresh: [${value}].`);
}

export function opType(value: string | undefined): 'index' | 'create' {
  if (value === undefined || value === 'index') return 'index';
  if (value === 'create') return 'create';
  throw illegalArgument(`opType must be 'create' or 'index', found: [${value}]`);
}
