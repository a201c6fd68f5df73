/**
 * A silent flood (./silent-flood.ts) in a process of its own, so that its sockets' client side does
 * not share the event loop of the service it floods, as an attacker's would not:
 * `node --import tsx test/budgets/flood-process.ts <service url> <loops> <address>`. Every socket
 * carries `X-Forwarded-For: <address>` (the service trusts one proxy). It writes its counts as a
 * line of JSON every 250 ms and once more after SIGTERM, when it ends its sockets and exits 0.
 */
import { silentFlood } from './silent-flood';

const [url, loops, address] = process.argv.slice(2);
const flood = silentFlood({ url }, Number(loops), () => ({ 'x-forwarded-for': address }));
const report = () => process.stdout.write(`${JSON.stringify(flood.counts)}\n`);
const reporting = setInterval(report, 250);
process.once('SIGTERM', () => {
  clearInterval(reporting);
  void flood.stop().then(() => {
    report();
    process.exit(0);
  });
});
