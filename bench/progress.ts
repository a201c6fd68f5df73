/**
 * Progress of a benchmark run on stderr, so stdout carries only the report.
 *
 * Contract: on a terminal, a cli-progress bar counting cells with the current cell's name; when
 * stderr is not a terminal (CI, a pipe, a file), one plain line per cell or step, stamped with the
 * seconds since the run started, and nothing else.
 */
import { SingleBar } from 'cli-progress';

export function progress(totalCells: number) {
  const tty = Boolean(process.stderr.isTTY);
  const bar = new SingleBar({
    format: 'bench [{bar}] {value}/{total} cells | {cell}',
    stream: process.stderr,
    hideCursor: true,
  });
  let done = 0;
  const started = performance.now();
  const at = (): string => `${((performance.now() - started) / 1000).toFixed(0)}s`;
  if (tty) bar.start(totalCells, 0, { cell: 'starting' });
  return {
    cell(name: string) {
      if (tty) bar.update(done, { cell: name });
      else process.stderr.write(`bench ${at()}: [${done + 1}/${totalCells}] ${name}\n`);
    },
    cellDone() {
      done += 1;
      if (tty) bar.update(done);
    },
    note(message: string) {
      if (tty) bar.update(done, { cell: message });
      else process.stderr.write(`bench ${at()}: ${message}\n`);
    },
    stop() {
      if (tty) bar.stop();
    },
  };
}
