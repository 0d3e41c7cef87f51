/**
 * The engine's request API: Elasticsearch's requests as an HTTP client states them (the index
 * expression of the path, the URI parameters as strings, the parsed JSON body), read and checked
 * with ES's errors, run, and answered with the response object ES sends. A request ES would refuse
 * throws the EsError it answers with (src/http writes it as ES's error body).
 *
 * The HTTP routes (src/http/routes/) call these and only move bytes; the same calls serve a caller
 * in process. Response parameters (`pretty`, `filter_path`, …) are accepted and left to whoever
 * writes the answer; a body given in the `source` parameter is the transport's to read.
 *
 * @example
 * const page = search(engine, 'books', { q: 'author:kim', sort: 'price:desc', size: '5' });
 * const { count: n } = count(engine, 'books', {}, { query: { range: { price: { lt: 10 } } } });
 * const { id } = openPointInTime(engine, 'books', { keep_alive: '1m' });
 * const next = search(engine, undefined, {}, { pit: { id }, sort: [{ price: 'asc' }], search_after: [9.5, 12] });
 * const { pit_id } = createPit(engine, 'books', { keep_alive: '1m' }); // OpenSearch's point in time
 * const { responses } = await msearch(engine, undefined, {}, [{ index: 'books' }, { size: 1 }]);
 */
export { count, type CountResponse } from './count.ts';
export { msearch, type MsearchOptions, type MsearchResponse } from './msearch.ts';
export { closePointInTime, openPointInTime } from './point-in-time.ts';
export { createPit, deleteAllPits, deletePits, getAllPits, type CreatePitResponse, type DeletePitResponse, type GetAllPitsResponse } from './opensearch-pit.ts';
export { reindex } from './reindex.ts';
export { clearScroll, scroll } from './scroll.ts';
export { runSearch, search, searchCall, type SearchCall } from './search-call.ts';
