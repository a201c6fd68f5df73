/**
 * A check that concurrent callers share ("group commit"), each answered by a run that was STARTED
 * AFTER it asked.
 *
 * Invariants: at most one run is in flight. A caller that asks while none is starts one at once
 * (no added wait when idle). A caller that asks while one is in flight is never answered by it, and
 * waits for the next run, which starts as soon as the in-flight one ends (also when it failed) and
 * answers every caller that asked meanwhile. A failed run fails all of its callers.
 *
 * Why never the run in flight: its command may have been evaluated before the caller's own write,
 * so its answer says nothing about the state after that write (see indexes.ts, which relies on it).
 * Why share at all: under load many callers ask within one run's round trip, and one command then
 * answers all of them.
 *
 * Cost: a shared run is one command; it is counted on the tally of the first caller of that run
 * who brings one (the callers who started or first queued for it), never once per caller.
 */
import type { CommandTally } from '../database/index';

/** The run the callers who ask while another is in flight wait for. */
interface NextRun<T> {
  /** Where its command is counted: the first of its callers' tallies. */
  tally: CommandTally | undefined;
  answer: Promise<T>;
  /** Settles `answer` as the run once it has started. */
  follow: (run: Promise<T>) => void;
}

export class SharedCheck<T> {
  private inFlight = false;
  private next: NextRun<T> | null = null;

  /** `run` sends the check's command, counting it on the tally it is given; it fails by rejecting. */
  constructor(private readonly run: (tally: CommandTally | undefined) => Promise<T>) {}

  /** The answer of a run started after this call; `tally` may hear the run's command (header). */
  ask(tally?: CommandTally): Promise<T> {
    if (!this.inFlight) return this.start(tally);
    if (this.next === null) {
      let follow: NextRun<T>['follow'] = () => undefined;
      const answer = new Promise<T>((resolve) => {
        follow = resolve;
      });
      this.next = { tally, answer, follow };
    } else {
      this.next.tally ??= tally;
    }
    return this.next.answer;
  }

  private start(tally: CommandTally | undefined): Promise<T> {
    this.inFlight = true;
    const run = this.run(tally);
    // One synchronous hand-over: no caller can slip in between the end of a run and the next.
    const ended = () => {
      this.inFlight = false;
      const next = this.next;
      this.next = null;
      if (next !== null) next.follow(this.start(next.tally));
    };
    run.then(ended, ended);
    return run;
  }
}
