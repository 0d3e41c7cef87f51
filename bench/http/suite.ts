import type { Suite } from '../lib/suite.ts';

export const httpSuite: Suite = {
  name: 'http',
  summary: 'TODO',
  async run() {
    throw new Error('not written yet');
  },
};
