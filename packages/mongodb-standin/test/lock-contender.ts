/**
 * One contender of data-lock.test.ts, a process of its own: prints `ready` once loaded, then
 * per line on stdin: `start <dir>` starts a stand-in on that data directory and prints
 * `won <pid>` or `lost <reason>`; `stop` stops the stand-in it won, if any, and prints `stopped`.
 * Loading first and starting on a signal lets all contenders race within a few milliseconds.
 */
import readline from 'node:readline';
import { startStandin, type RunningStandin } from '../src';

async function main(): Promise<void> {
  let running: RunningStandin | undefined;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say('ready');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.startsWith('start ')) {
      try {
        running = await startStandin({
          dataDir: line.slice('start '.length),
          log: () => undefined,
        });
        say(`won ${process.pid}`);
      } catch (error) {
        say(`lost ${(error as Error).message}`);
      }
    } else if (line === 'stop') {
      await running?.stop();
      running = undefined;
      say('stopped');
    }
  }
}

void main();
