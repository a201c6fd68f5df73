/**
 * Public entry of the MongoDB wire-protocol stand-in: an in-memory server speaking enough of
 * MongoDB's protocol and semantics for this service and its tests, loud about everything else.
 * It imports nothing from the service. `port: 0` (the default) picks a free port; the server
 * listens on 127.0.0.1 only. Each started instance has its own, empty data.
 */
import { LogLine, StandinServer } from './server';

export interface StandinOptions {
  port?: number;
  /** where connection-closing reasons and internal errors go; default stderr */
  log?: LogLine;
}

export interface RunningStandin {
  /** `mongodb://127.0.0.1:<port>/` */
  uri: string;
  port: number;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startStandin(options: StandinOptions = {}): Promise<RunningStandin> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const server = new StandinServer(log);
  const port = await server.listen(options.port ?? 0, HOST);
  return { uri: `mongodb://${HOST}:${port}/`, port, stop: () => server.close() };
}
