/**
 * Two service instances over one database of a stand-in whose clock the test sets: for the
 * database-clock tests (periods), where mongod offers no such setting. The services' own clocks
 * stay the test process's.
 */
import { twoInstancesOnOneDatabase, type TwoInstances } from './service';

/**
 * A stand-in of the file's own answering `$$NOW` from `clock` (ms since the epoch), and two
 * services on one database of it, started before the file's tests and stopped after them. A file
 * calls it at its top level (see `twoInstancesOnOneDatabase` for the order of its own hooks).
 */
export function clockedServicesBed(clock: () => number): TwoInstances {
  return twoInstancesOnOneDatabase({ privateStandin: { clock } });
}
