/** Node settings as the command line gives them (`-E name=value`), in Elasticsearch's forms. */
import { totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../src/engine/errors.ts';
import { MAX_RUNS_BYTES, memorySize, parseNodeSettings } from '../../src/engine/node-settings.ts';
import { settingsFromArgs } from '../../src/server.ts';

const NAME = 'indices.sorted_runs.cache.size';

describe('node settings', () => {
  it('reads byte sizes and percentages, capped at what wasm32 memory can hold', () => {
    expect(memorySize(NAME, '512mb')).toBe(512 * 1024 ** 2);
    expect(memorySize(NAME, '0.5gb')).toBe(1024 ** 3 / 2);
    expect(memorySize(NAME, '.5g')).toBe(1024 ** 3 / 2);
    expect(memorySize(NAME, '0')).toBe(0);
    expect(memorySize(NAME, '0b')).toBe(0);
    expect(memorySize(NAME, '1pb')).toBe(MAX_RUNS_BYTES);
    expect(memorySize(NAME, '1%')).toBe(Math.min(MAX_RUNS_BYTES, Math.floor(totalmem() / 100)));
    expect(parseNodeSettings({ [NAME]: '64kb' }).sortedRunsCacheBytes).toBe(65536);
  });

  it('refuses what it cannot read, and unknown settings, in ES words', () => {
    expect(() => memorySize(NAME, '512')).toThrow(/unit is missing or unrecognized/);
    expect(() => memorySize(NAME, '101%')).toThrow(/percentage should be in \[0-100\]/);
    // ES's -1 ("no size") is a size, but not one these settings can take.
    expect(() => parseNodeSettings({ 'http.max_content_length': '-1' })).toThrow('failed to parse value [-1] for setting [http.max_content_length], must be >= [0]');
    expect(() => parseNodeSettings({ 'indices.nope': '1' })).toThrow(EsError);
    expect(() => parseNodeSettings({ 'search.paging': 'sorted' })).toThrow('failed to parse value [sorted] for setting [search.paging], must be one of [sorted_runs, top_k]');
  });

  it('sets the default paging of searches with search.paging', () => {
    expect(parseNodeSettings().searchPaging).toBe('sorted_runs');
    expect(parseNodeSettings({ 'search.paging': 'top_k' }).searchPaging).toBe('top_k');
  });

  it('takes -E name=value and -Ename=value, and refuses a setting given twice', () => {
    expect(settingsFromArgs(['-E', `${NAME}=1gb`])).toEqual({ [NAME]: '1gb' });
    expect(settingsFromArgs([`-E${NAME}=10%`])).toEqual({ [NAME]: '10%' });
    expect(() => settingsFromArgs(['-E', `${NAME}=1gb`, '-E', `${NAME}=2gb`])).toThrow(`setting [${NAME}] already set, saw [1gb] and [2gb]`);
    expect(() => settingsFromArgs(['--port'])).toThrow(/expected -E name=value/);
  });
});
