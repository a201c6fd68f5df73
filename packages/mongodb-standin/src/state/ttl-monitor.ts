/**
 * When TTL indexes are applied: a pass (engine/ttl.ts, run by the server as one command) every
 * `ttlMonitorSleepSecs`, 60 unless set, mongod's default and its parameter of the same name.
 * Setting the period starts the next wait from then (mongod finishes the wait it is in first:
 * the stand-in's tests set one second and should not wait out a minute). The timer does not keep
 * the process alive.
 */
export const DEFAULT_TTL_MONITOR_SLEEP_SECS = 60;

export class TtlMonitor {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pass: () => void,
    private periodSecs = DEFAULT_TTL_MONITOR_SLEEP_SECS,
  ) {}

  get sleepSecs(): number {
    return this.periodSecs;
  }

  set sleepSecs(seconds: number) {
    this.periodSecs = seconds;
    if (this.timer) this.start();
  }

  start(): void {
    this.stop();
    this.timer = setInterval(this.pass, this.periodSecs * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
