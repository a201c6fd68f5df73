import { profileSplit, topFunctions, type CpuProfile } from '../../bench/profile-split';

const frame = (functionName: string, url = '') => ({ functionName, url });
const MODULES = '/app/node_modules';

/** root → idle, GC, a driver function (→ a socket write), express (→ a native JSON parse). */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 6, 8] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('(garbage collector)') },
    {
      id: 4,
      callFrame: frame('command', `file://${MODULES}/mongodb/lib/cmap/connection.js`),
      children: [5],
    },
    { id: 5, callFrame: frame('writeBuffer') },
    { id: 6, callFrame: frame('handle', `file://${MODULES}/router/index.js`), children: [7] },
    { id: 7, callFrame: frame('parse') },
    { id: 8, callFrame: frame('createUsersWith', 'file:///app/dist/users/creation.js') },
  ],
  // One sample per node of interest, 1 ms apart (the first delta is from the start).
  samples: [2, 3, 4, 5, 7, 8, 4],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000],
  startTime: 0,
  endTime: 7000,
};

describe('profileSplit', () => {
  it('sums self time by group, natives with their caller unless the issue names them', () => {
    const split = profileSplit(profile);
    expect(split.idleMs).toBe(1);
    expect(split.busyMs).toBe(6);
    expect(Object.fromEntries(split.groups.map((g) => [g.group, g.ms]))).toEqual({
      'driver JavaScript (mongodb)': 2,
      GC: 1,
      'socket writes': 1,
      'express stack (express, router, body-parser, cors, ...)': 1,
      "the service's own code": 1,
    });
    expect(split.groups[0]).toMatchObject({ group: 'driver JavaScript (mongodb)', share: 2 / 6 });
  });

  it('counts only the samples of a window measured back from the end', () => {
    // Samples at 1..7 ms; the window 2.5 to 0.5 ms before the end (7 ms) holds those at 5 and 6.
    const split = profileSplit(profile, { startMsBeforeEnd: 2.5, endMsBeforeEnd: 0.5 });
    expect(split.busyMs).toBe(2);
    expect(split.groups.map((g) => g.group).sort()).toEqual([
      'express stack (express, router, body-parser, cors, ...)',
      "the service's own code",
    ]);
  });
});

describe('topFunctions', () => {
  it('names functions with their package path, most self time first, idle left out', () => {
    expect(topFunctions(profile, 2)).toEqual([
      { name: 'command mongodb/lib/cmap/connection.js', ms: 2 },
      { name: '(garbage collector)', ms: 1 },
    ]);
  });
});
