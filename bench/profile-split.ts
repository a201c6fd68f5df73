/**
 * Where a service's CPU time goes: a V8 CPU profile (`node --cpu-prof`) summed by self time into
 * the groups issue 14 reasons about (driver JavaScript, BSON, the HTTP framework, Node's HTTP and
 * streams, socket writes, graphql, Apollo, GC, the service's own code, ...).
 *
 * Contract: a pure function of the profile. Self time of a sample goes to the function on top of
 * the stack; a native function without a script (a socket write, a JSON parse) counts in its own
 * group where it is one the issue names, otherwise with the nearest caller that has a script, so
 * time is never lost. Shares are of busy time: `(idle)` is reported apart and left out of them.
 */

/** The part of a `.cpuprofile` this module reads. */
export interface CpuProfile {
  /** Microseconds, on the profiler's own clock. */
  startTime: number;
  endTime: number;
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSplit {
  /** Busy milliseconds (every sample except idle). */
  busyMs: number;
  idleMs: number;
  /** Group → milliseconds, largest first. */
  groups: Array<{ group: string; ms: number; share: number }>;
}

/** Package directory → group, for scripts under node_modules. */
const PACKAGE_GROUPS: Array<[RegExp, string]> = [
  [/^(mongodb|mongodb-connection-string-url|@mongodb-js\/.*)$/, 'driver JavaScript (mongodb)'],
  [/^bson$/, 'BSON'],
  [
    /^(express|router|body-parser|raw-body|negotiator|cors|accepts|type-is|content-type|on-finished|finalhandler|send|serve-static|qs|iconv-lite|media-typer|mime-types|mime-db|depd|debug|ms|parseurl|path-to-regexp|encodeurl|escape-html|statuses|vary|proxy-addr|forwarded|ipaddr\.js|fresh|range-parser|etag|http-errors|setprototypeof|inherits|merge-descriptors|cookie|cookie-signature|utils-merge|methods|unpipe|bytes|toidentifier|content-disposition|once|wrappy|safe-buffer|safer-buffer|is-promise|call-bound|get-intrinsic|function-bind|es-errors|side-channel.*|object-inspect|math-intrinsics|dunder-proto|gopd|has-symbols|hasown|es-object-atoms|es-define-property|get-proto|call-bind-apply-helpers|router|@as-integrations\/express5)$/,
    'express stack (express, router, body-parser, cors, ...)',
  ],
  [/^graphql$/, 'graphql'],
  [
    /^(@apollo\/.*|@escape\.tech\/.*|@graphql-tools\/.*|lru-cache|whatwg-mimetype)$/,
    'Apollo + armor',
  ],
  [
    /^(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|atomic-sleep|on-exit-leak-free|real-require|safe-stable-stringify)$/,
    'logging (pino)',
  ],
  [/^(prom-client|tdigest|bintrees)$/, 'metrics (prom-client)'],
  [/^dataloader$/, 'DataLoader'],
  [/^zod$/, 'zod'],
];

/** Natives the issue names on their own: writes to sockets. */
const SOCKET_WRITE =
  /^(writev|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString|writeUcs2String|writeGeneric)$/;

function packageOf(url: string): string | null {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const rest = url.slice(at + '/node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

function nodeGroup(url: string): string {
  const module = url.replace(/^node:/, '');
  if (/^_http_/.test(module)) return "Node's HTTP";
  if (/(^|\/)(streams\/|stream_base_commons|net$|buffer$)/.test(module)) {
    return "Node's streams + net";
  }
  if (/^events$/.test(module)) return 'EventEmitter';
  if (/crypto/.test(module)) return 'crypto (hashes)';
  if (/(^|\/)modules\//.test(module)) return 'module loading (start-up)';
  if (/(timers|task_queues|priority_queue|async_hooks)/.test(module)) {
    return "Node's timers + microtasks";
  }
  return 'Node, other';
}

/** The group of a function that has a script (url), or null when it has none. */
function groupOfScript(url: string): string | null {
  if (url === '') return null;
  const pkg = packageOf(url);
  if (pkg !== null) {
    const match = PACKAGE_GROUPS.find(([pattern]) => pattern.test(pkg));
    return match ? match[1] : `other packages (${pkg})`;
  }
  if (url.startsWith('node:')) return nodeGroup(url);
  if (/\/(dist|src)\//.test(url)) return "the service's own code";
  return 'other scripts';
}

/**
 * Which samples to count: those taken from `startMsBeforeEnd` to `endMsBeforeEnd` before the
 * profile ended (the process's exit), e.g. only the measured load, without start-up and warm-up.
 */
export interface SampleWindow {
  startMsBeforeEnd: number;
  endMsBeforeEnd: number;
}

/** The sample indexes within `window` (all of them without one). */
function sampleTimes(profile: CpuProfile, window?: SampleWindow): (i: number) => boolean {
  if (window === undefined) return () => true;
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const from = profile.endTime - window.startMsBeforeEnd * 1000;
  const to = profile.endTime - window.endMsBeforeEnd * 1000;
  return (i) => times[i] >= from && times[i] <= to;
}

export function profileSplit(profile: CpuProfile, window?: SampleWindow): ProfileSplit {
  const inWindow = sampleTimes(profile, window);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);

  const groupOf = (id: number): string => {
    const { functionName, url } = byId.get(id)?.callFrame ?? { functionName: '', url: '' };
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return 'V8/native, unattributed';
    if (url === '' && SOCKET_WRITE.test(functionName)) return 'socket writes';
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const group = groupOfScript(byId.get(at)?.callFrame.url ?? '');
      if (group !== null) return group;
    }
    return 'V8/native, unattributed';
  };

  const totals = new Map<string, number>();
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    if (!inWindow(i)) return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (byId.get(id)?.callFrame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    const group = groupOf(id);
    totals.set(group, (totals.get(group) ?? 0) + ms);
  });
  const busyMs = [...totals.values()].reduce((a, b) => a + b, 0);
  const groups = [...totals]
    .map(([group, ms]) => ({ group, ms, share: busyMs === 0 ? 0 : ms / busyMs }))
    .sort((a, b) => b.ms - a.ms);
  return { busyMs, idleMs, groups };
}

/** The `count` functions with the most self time (idle left out), for finding levers. */
export function topFunctions(
  profile: CpuProfile,
  count: number,
  window?: SampleWindow,
): Array<{ name: string; ms: number }> {
  const inWindow = sampleTimes(profile, window);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (!inWindow(i) || frame === undefined || frame.functionName === '(idle)') return;
    const where = frame.url.includes('/node_modules/')
      ? frame.url.replace(/^.*\/node_modules\//, '')
      : frame.url.replace(/^.*\/(dist|src)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals]
    .map(([name, ms]) => ({ name, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

/** The split as a Markdown table. */
export function profileTable(split: ProfileSplit): string {
  const rows = split.groups.map(
    (g) => `| ${g.group} | ${g.ms.toFixed(0)} | ${(g.share * 100).toFixed(1)}% |`,
  );
  return [
    `Busy ${split.busyMs.toFixed(0)} ms, idle ${split.idleMs.toFixed(0)} ms`,
    '',
    '| Group | Self ms | Share of busy |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}
