/**
 * The reliability checks: `npm run reliability -- <check> [options]`, each check a module whose
 * `main(args)` runs it and returns the exit code.
 */
const CHECKS: Record<string, () => Promise<{ main(args: string[]): Promise<number> }>> = {
  load: () => import('./load.ts'),
  crash: () => import('./crash.ts'),
  'disk-full': () => import('./disk-full.ts'),
  hostile: () => import('./hostile.ts'),
};

const [name, ...args] = process.argv.slice(2);
const check = name === undefined ? undefined : CHECKS[name];
if (!check) {
  console.error(`usage: npm run reliability -- <${Object.keys(CHECKS).join('|')}> [options]`);
  process.exit(2);
}
process.exitCode = await (await check()).main(args);
