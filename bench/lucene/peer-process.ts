/**
 * The Lucene peer (bench/lucene/*.java) as a child process: compiled with javac into a temporary
 * directory against Debian's `liblucene8-java` jars, then run on the JDK's HTTP server with
 * TCP_NODELAY, on 127.0.0.1 and a free port, its indices in another temporary directory (MMapDirectory).
 * Both directories go when the peer stops. No class file is ever written into the repository.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/child-server.ts';

/** Where Debian's liblucene8-java puts its jars (named lucene-core-8.7.0.jar by the package, though they are 8.8.1). */
const JAR_DIR = '/usr/share/java';
const SOURCES = 'bench/lucene';
/** Elasticsearch 7's default heap. */
const JAVA_FLAGS = ['-Xms1g', '-Xmx1g', '-Dsun.net.httpserver.nodelay=true'];
const START_MS = 60_000;
const STOP_MS = 10_000;

export interface Toolchain {
  jar: string;
  javac: string;
  java: string;
}

/** The JDK and the Lucene core jar, or why the suite cannot run here. */
export function findToolchain(): Toolchain | { missing: string } {
  const version = (tool: string) => {
    const run = spawnSync(tool, ['-version'], { encoding: 'utf8' });
    return run.error || run.status !== 0 ? undefined : `${run.stdout}${run.stderr}`.trim().split('\n')[0];
  };
  const javac = version('javac');
  const java = version('java');
  if (!javac || !java) return { missing: 'no JDK on the PATH (javac and java): install one, e.g. `apt-get install default-jdk-headless`' };
  const jar = existsSync(JAR_DIR) ? readdirSync(JAR_DIR).find((name) => /^lucene8?-core(-[\d.]+)?\.jar$/.test(name)) : undefined;
  if (!jar) return { missing: `no Lucene core jar in ${JAR_DIR}: install Debian's liblucene8-java (\`apt-get install liblucene8-java\`)` };
  return { jar: join(JAR_DIR, jar), javac, java };
}

export interface LucenePeer {
  url: string;
  pid: number;
  /** Stops the JVM (SIGTERM, then SIGKILL) and removes its classes and data. Idempotent. */
  stop(): Promise<void>;
}

export async function startLucenePeer(toolchain: Toolchain, log: (line: string) => void): Promise<LucenePeer> {
  const classes = mkdtempSync(join(tmpdir(), 'deeppage.bench-lucene-classes-'));
  const data = mkdtempSync(join(tmpdir(), 'deeppage.bench-lucene-data-'));
  const remove = () => {
    rmSync(classes, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  };
  const sources = readdirSync(join(REPO_ROOT, SOURCES)).filter((name) => name.endsWith('.java')).map((name) => join(SOURCES, name));
  try {
    execFileSync('javac', ['-d', classes, '-cp', toolchain.jar, ...sources], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    remove();
    throw new Error(`javac failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
  }
  const proc = spawn('java', [...JAVA_FLAGS, '-cp', `${toolchain.jar}:${classes}`, 'LucenePeer', data], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.set(proc.pid!, remove);
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_MS);
        await exited;
        clearTimeout(timer);
      }
      live.delete(proc.pid!);
      remove();
    })());
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line within ${START_MS / 1000} s`)), START_MS);
      void exited.then(() => reject(new Error(`exited (code ${proc.exitCode}) before listening`)));
      for (const stream of [proc.stdout!, proc.stderr!]) {
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          for (const line of chunk.split('\n').filter(Boolean)) {
            lines.push(line);
            if (lines.length > 40) lines.shift();
            const match = /listening on (http:\/\/\S+)/.exec(line);
            if (match) {
              clearTimeout(timer);
              resolve(match[1]);
            }
          }
        });
      }
    });
    log(`  lucene peer (pid ${proc.pid}) on ${url}`);
    return { url, pid: proc.pid!, stop };
  } catch (error) {
    await stop();
    throw new Error(`the Lucene peer did not start: ${(error as Error).message}\n${lines.join('\n')}`);
  }
}

// Should this process exit without stopping the peer, the JVM goes with it, and its directories.
const live = new Map<number, () => void>();
process.once('exit', () => {
  for (const [pid, remove] of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
    remove();
  }
});
