/**
 * Requests timed side by side in rounds: in each round every contender in turn (the order turning
 * round by round) gets an untimed request, then `perRound` timed ones on its own kept-alive
 * connection. A slow spell of the machine (timings here drift by tens of percent within minutes)
 * then falls on every contender alike, and the spread of the round medians shows how much it moved.
 */
import type { Timing } from '../lib/measure.ts';
import { quantile } from '../lib/format.ts';
import { WrongAnswer } from '../lib/suite.ts';
import type { Answer, Call, Connection } from './client.ts';
import { frontMark } from './pages.ts';

export interface Contender {
  name: string;
  connection: Connection;
  call: Call;
  /** Every answer, timed or not, must pass this. */
  verify(answer: Answer): boolean;
}

export interface Measured {
  /** Median, min and max over every timed request. */
  timing: Timing;
  /** Each round's median, in ms, in round order. */
  roundMedians: number[];
  /** How many timed answers carried each `X-Deeppage-Page` value (`none`: the header was absent). */
  states: Record<string, number>;
  /** `X-Deeppage-Cluster-Requests` of each timed answer that carried it. */
  clusterRequests: number[];
}

export interface RoundBudget {
  rounds: number;
  perRound: number;
}

export async function inRounds(contenders: Contender[], budget: RoundBudget): Promise<Map<string, Measured>> {
  const samples = contenders.map(() => ({ ms: [] as number[], rounds: [] as number[], states: {} as Record<string, number>, requests: [] as number[] }));
  for (let round = 0; round < budget.rounds; round++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const at = (turn + round) % contenders.length;
      const contender = contenders[at];
      const own = samples[at];
      await checked(contender);
      const times: number[] = [];
      for (let i = 0; i < budget.perRound; i++) {
        const answer = await checked(contender);
        times.push(answer.ms);
        const mark = frontMark(answer.headers);
        own.states[mark.page ?? 'none'] = (own.states[mark.page ?? 'none'] ?? 0) + 1;
        if (mark.clusterRequests !== undefined) own.requests.push(mark.clusterRequests);
      }
      own.ms.push(...times);
      own.rounds.push(median(times));
    }
  }
  return new Map(contenders.map((c, i) => [c.name, { timing: summary(samples[i].ms), roundMedians: samples[i].rounds, states: samples[i].states, clusterRequests: samples[i].requests }]));
}

async function checked(contender: Contender): Promise<Answer> {
  const answer = await contender.connection.send(contender.call);
  if (!contender.verify(answer)) {
    throw new WrongAnswer(`${contender.name}: ${contender.call.method} ${contender.call.path} answered ${answer.status} and failed its check: ${answer.body.slice(0, 300)}`);
  }
  return answer;
}

export function summary(ms: number[]): Timing {
  const sorted = Float64Array.from(ms).sort();
  return { median: round(quantile(sorted, 0.5)), min: round(sorted[0]), max: round(sorted[sorted.length - 1]), samples: sorted.length };
}

export function median(values: number[]): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}

function round(ms: number): number {
  return Math.round(ms * 1e4) / 1e4;
}
