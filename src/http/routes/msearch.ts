/**
 * `_msearch`: the NDJSON body's lines (header, search, header, search, …) handed to the engine's
 * request API (src/engine/request/msearch.ts), which reads every search before running them one
 * after another, each in a turn of its own (turns.ts). A failed item is answered
 * `{"error": …, "status": N}` among the others' responses.
 */
import { Hono, type Context } from 'hono';
import type { Engine } from '../../engine/engine.ts';
import { EsError } from '../../engine/errors.ts';
import { RawJson } from '../../engine/raw-json.ts';
import { msearch } from '../../engine/request/api.ts';
import type { SearchResponse } from '../../engine/search/search.ts';
import { parseNdjson } from '../body.ts';
import { errorBody } from '../error-response.ts';
import type { Slab } from '../json-bytes.ts';
import { apiParams, ndjsonBody } from '../request-body.ts';
import { pathOf, queryOf } from '../request-uri.ts';
import { send } from '../respond.ts';
import { searchResponseBody } from '../search-response.ts';
import { TURNS, type Turns } from '../turns.ts';

export function msearchRoutes(engine: Engine, slab: Slab): Hono {
  const app = new Hono();
  const route = async (c: Context) => {
    // The body's lines, or the `source` parameter's; a body without a final newline is refused in `_msearch`'s words.
    const source = queryOf(c).source;
    const lines = source !== undefined ? parseNdjson(source, 'msearch') : await ndjsonBody(c, 'msearch');
    const { took, responses } = await msearch(engine, c.req.param('index'), apiParams(c), lines.map((line) => line.value), {
      path: pathOf(c),
      turns: c.get(TURNS) as Turns | undefined,
      lineText: (i) => lines[i].bytes.toString(),
    });
    return send(c, 200, { took, responses: responsesJson(responses, slab) });
  };
  app.on(['GET', 'POST'], '/_msearch', route);
  app.on(['GET', 'POST'], '/:index/_msearch', route);
  return app;
}

const STATUS_OK = ',"status":200}';

/**
 * The responses as one JSON array: each search response as `_search` writes it (its hits' `_source`
 * as stored), with its status last; each failure as ES's error body, whose status is last already.
 */
function responsesJson(responses: readonly (SearchResponse | EsError)[], slab: Slab): RawJson {
  let text = '[';
  for (let i = 0; i < responses.length; i++) {
    const response = responses[i];
    if (i > 0) text += ',';
    text += response instanceof EsError ? JSON.stringify(errorBody(response)) : searchResponseBody(response, slab).subarray(0, -1).toString('utf8') + STATUS_OK;
  }
  return new RawJson(`${text}]`);
}
