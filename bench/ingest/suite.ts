import type { Suite } from '../lib/suite.ts';

export const ingestSuite: Suite = {
  name: 'ingest',
  summary: 'TODO',
  async run() {
    throw new Error('not written yet');
  },
};
