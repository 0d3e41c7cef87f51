/**
 * The benchmark runner.
 *
 *   npm run bench                           # every suite, full run (the committed figures)
 *   npm run bench -- --quick                # every suite, about two minutes
 *   npm run bench -- engine http            # some suites
 *   npm run bench -- --url http://localhost:9201 --index cities --sort population
 *                                           # the HTTP from/size sweep against another
 *                                           # Elasticsearch-compatible endpoint, beside deeppage
 *
 * Each suite writes bench/results/<suite>.json, <suite>.md and <suite>-*.svg (a quick run writes
 * under bench/results/quick/, which git ignores; `--out DIR` writes elsewhere).
 * Progress goes to stderr; the Markdown summaries go to stdout.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { engineSuite } from './engine/suite.ts';
import { frontSuite } from './front/suite.ts';
import { httpSuite } from './http/suite.ts';
import { ingestSuite } from './ingest/suite.ts';
import { kernelsSuite } from './kernels/suite.ts';
import { luceneSuite } from './lucene/suite.ts';
import { scaleSuite } from './scale/suite.ts';
import { machine, writeSuite } from './lib/results.ts';
import { consoleContext, type Mode, type Suite } from './lib/suite.ts';

export const SUITES: Suite[] = [kernelsSuite, engineSuite, httpSuite, ingestSuite, scaleSuite, frontSuite, luceneSuite];

const USAGE = `usage: npm run bench -- [suite ...] [--quick] [--out DIR] [--url URL --index NAME [--sort FIELD]]

suites (default: all):
${SUITES.map((s) => `  ${s.name.padEnd(8)} ${s.summary}`).join('\n')}

  --quick        a short run (about two minutes for all suites)
  --out DIR      where to write results (default: bench/results, or bench/results/quick)
  --url URL      also sweep from/size over HTTP against this Elasticsearch-compatible endpoint
                 (credentials as http://user:password@host:9200 are sent as Basic auth)
  --index NAME   the index to sweep there (default: cities)
  --sort FIELD   the numeric field to sort by, descending (default: population)
`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      out: { type: 'string' },
      url: { type: 'string' },
      index: { type: 'string', default: 'cities' },
      sort: { type: 'string', default: 'population' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const unknown = positionals.filter((name) => !SUITES.some((s) => s.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown suite ${unknown.join(', ')}\n\n${USAGE}`);
    return 2;
  }
  // With --url and no suite named, the user wants the HTTP sweep.
  const names = positionals.length > 0 ? positionals : values.url ? ['http'] : SUITES.map((s) => s.name);
  const mode: Mode = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full';
  const remote = values.url ? { url: values.url.replace(/\/+$/, ''), index: values.index!, sort: values.sort! } : undefined;
  // A quick run never overwrites the committed full run's figures.
  const out = values.out ?? (mode === 'full' ? 'bench/results' : `bench/results/${mode}`);
  const ctx = consoleContext(mode, remote);
  // Recorded in every result file: a password given in --url must not be.
  const args = process.argv.slice(2).map((arg) => arg.replace(/\/\/[^/@\s]*@/, '//***@'));
  const command = ['npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' ');
  const started = performance.now();
  ctx.log(`deeppage benchmark (${mode}), node ${process.version}: ${names.join(', ')}`);
  for (const name of names) {
    const suite = SUITES.find((s) => s.name === name)!;
    const t0 = performance.now();
    ctx.log(`== ${suite.name}: ${suite.summary}`);
    const output = await suite.run(ctx);
    // A suite that cannot run here (a peer not installed) says why and writes nothing.
    if (typeof output.notes?.skipped === 'string') {
      ctx.log(`== ${suite.name} skipped: ${output.notes.skipped}`);
      continue;
    }
    const info = { suite: suite.name, command, mode, date: new Date().toISOString(), node: process.version, machine: machine() };
    const files = await writeSuite(out, info, output);
    ctx.log(`== ${suite.name} done in ${seconds(t0)} s: ${files.map((f) => `${out}/${f}`).join(', ')}`);
    process.stdout.write(readFileSync(`${out}/${suite.name}.md`, 'utf8') + '\n');
  }
  ctx.log(`all done in ${seconds(started)} s`);
  return 0;
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(0);
}

process.exitCode = await main();
