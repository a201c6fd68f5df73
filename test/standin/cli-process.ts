/**
 * The stand-in as its own process, as `npm run standin -- --data-dir DIR` starts it, for the
 * tests that SIGKILL it: `startCli` resolves with the URI once the ready line is printed (and
 * rejects with its output if it exits first); `killed` SIGKILLs it and waits for the exit.
 */
import { ChildProcess, spawn } from 'node:child_process';

export interface CliStandin {
  child: ChildProcess;
  uri: string;
  port: number;
  /** the ready line */
  line: string;
}

export function startCli(dataDir: string, port = 0): Promise<CliStandin> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/standin/cli.ts', '--port', String(port), '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}: ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /mongodb:\/\/127\.0\.0\.1:(\d+)\/\S*(?=\n)/.exec(output);
      if (match)
        resolve({ child, uri: match[0], port: Number(match[1]), line: output.split('\n')[0] });
    });
  });
}

export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
