/**
 * What a process costs, read from outside it through Linux's `/proc`: resident memory and CPU time.
 *
 * Contract: CPU time is user + system time since the process started, in milliseconds (from
 * `/proc/<pid>/stat`, in clock ticks of `getconf CLK_TCK`); a cell's cost is the difference of two
 * readings. CPU time per user is what to compare on a busy machine: unlike users per second it
 * hardly moves when other work competes for the cores. A process that has gone (or a system without
 * `/proc`) reads as zero rather than failing the run.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return (
      Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 })) || 100
    );
  } catch {
    return 100;
  }
})();

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) / 1024;
}

export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : 0;
}

/** Total CPU milliseconds of several processes. */
export async function totalCpuMs(pids: number[]): Promise<number> {
  return (await Promise.all(pids.map(cpuMs))).reduce((a, b) => a + b, 0);
}

/** CPU milliseconds a cell cost each side: service processes, database process, this process. */
export interface CpuSplit {
  serviceMs: number | null;
  databaseMs: number | null;
  clientMs: number;
}

/** Starts measuring; the returned function gives the CPU spent since. */
export async function startCpuMeter(
  servicePids: number[],
  databasePid: number | undefined,
): Promise<() => Promise<CpuSplit>> {
  const service = await totalCpuMs(servicePids);
  const database = databasePid === undefined ? 0 : await cpuMs(databasePid);
  const client = process.cpuUsage();
  return async () => {
    const clientUsage = process.cpuUsage(client);
    return {
      serviceMs: servicePids.length === 0 ? null : (await totalCpuMs(servicePids)) - service,
      databaseMs: databasePid === undefined ? null : (await cpuMs(databasePid)) - database,
      clientMs: (clientUsage.user + clientUsage.system) / 1000,
    };
  };
}
