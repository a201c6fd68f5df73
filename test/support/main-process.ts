/**
 * The service as a real process: `src/main.ts` under tsx's loader in a child of the test, with the
 * environment given (PATH, PORT=0 and LOG_LEVEL=info besides), its stdout and stderr collected. It
 * runs in the project's root unless given a `cwd` (as `npm start` in a folder of its own, where the
 * embedded database keeps its data in `./.data`); the loader is named by its path, so it is found
 * from any folder.
 *
 * tsx's loader runs in the child itself: the `tsx` CLI would stand between a signal and main.ts and
 * SIGKILL it when it does not confirm the relay within 30 ms (as on a busy machine). The child is
 * killed after `timeoutMs` whatever happens, so a hang fails the test instead of stalling it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
export const MAIN_PROCESS_TIMEOUT_MS = 60_000;
const READY_LINE = /service ready at (http:\/\/\S+)\/graphql/;

export interface MainProcess {
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** The service's URL once it printed that it is ready; rejects if it exits first. */
  ready: Promise<string>;
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

export function startMainProcess(
  env: Record<string, string>,
  options: { nodeArgs?: string[]; timeoutMs?: number; cwd?: string } = {},
): MainProcess {
  const child = spawn(
    process.execPath,
    ['--import', TSX_LOADER, ...(options.nodeArgs ?? []), path.join(ROOT, 'src', 'main.ts')],
    {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let announce: (url: string) => void = () => {};
  const ready = new Promise<string>((resolve, reject) => {
    announce = resolve;
    child.once('exit', (code) =>
      reject(new Error(`the service exited (${code}) before it was ready:\n${output}`)),
    );
  });
  // Read by tests that expect the process to exit before it is ready.
  ready.catch(() => {});
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    const url = READY_LINE.exec(output)?.[1];
    if (url !== undefined) announce(url);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const killer = setTimeout(
    () => child.kill('SIGKILL'),
    options.timeoutMs ?? MAIN_PROCESS_TIMEOUT_MS,
  );
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve(code);
    });
  });
  return { child, output: () => output, ready, exited };
}
