import type { Suite } from '../lib/suite.ts';

export const engineSuite: Suite = {
  name: 'engine',
  summary: 'TODO',
  async run() {
    throw new Error('not written yet');
  },
};
