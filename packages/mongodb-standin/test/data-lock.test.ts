/**
 * The data directory has one owner by construction (state/data-lock.ts): 20 processes, each
 * loaded and waiting, are told at the same instant to start a stand-in on one directory, for 20
 * rounds on the same directory (the winner stops between rounds, so each round also shows the
 * lock is released). Every round exactly one wins, and every other is refused naming the winner's
 * pid (or "another process" when it looked before the winner wrote it).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const CONTENDERS = 20;
const ROUNDS = 20;

interface Contender {
  child: ChildProcess;
  next(): Promise<string>;
  send(line: string): void;
}

function contender(): Contender {
  const child = spawn(process.execPath, ['--import', 'tsx', `${__dirname}/lock-contender.ts`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    child,
    next: async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error(`contender ${child.pid} exited`);
      return value as string;
    },
    send: (line) => child.stdin!.write(`${line}\n`),
  };
}

let dir: string;
let contenders: Contender[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'standin-lock-'));
  contenders = Array.from({ length: CONTENDERS }, contender);
  for (const one of contenders) expect(await one.next()).toBe('ready');
}, 120_000);

afterAll(async () => {
  for (const one of contenders) one.child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

test(`${CONTENDERS} processes starting at once on one data directory: exactly one owns it, ${ROUNDS} rounds of ${ROUNDS}`, async () => {
  const winnersPerRound: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const one of contenders) one.send(`start ${dir}`);
    const answers = await Promise.all(contenders.map((one) => one.next()));
    const winners = answers.filter((answer) => answer.startsWith('won '));
    winnersPerRound.push(winners.length);
    if (winners.length === 1) {
      const winner = winners[0].slice('won '.length);
      expect(await readFile(path.join(dir, 'standin.lock'), 'utf8')).toBe(`${winner}\n`);
      for (const answer of answers.filter((a) => !a.startsWith('won ')))
        expect(answer).toMatch(
          new RegExp(`^lost .*in use by (process ${winner}|another process) `),
        );
    }
    for (const one of contenders) one.send('stop');
    for (const one of contenders) expect(await one.next()).toBe('stopped');
  }
  expect(winnersPerRound).toEqual(Array.from({ length: ROUNDS }, () => 1));
}, 300_000);

test('a stand-in whose owner was SIGKILLed starts at once on the same directory (the kernel released the lock)', async () => {
  const victim = contender();
  expect(await victim.next()).toBe('ready');
  victim.send(`start ${dir}`);
  expect(await victim.next()).toBe(`won ${victim.child.pid}`);
  await new Promise((resolve) => {
    victim.child.once('exit', resolve);
    victim.child.kill('SIGKILL');
  });
  const heir = contenders[0];
  heir.send(`start ${dir}`);
  expect(await heir.next()).toBe(`won ${heir.child.pid}`);
  heir.send('stop');
  expect(await heir.next()).toBe('stopped');
});
