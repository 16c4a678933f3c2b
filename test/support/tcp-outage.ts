/**
 * A TCP proxy on loopback that can take its target away: `cut` drops every connection at once,
 * requests in flight included (one may have been applied, its answer lost), and resets new ones
 * until `restore`. An outage of a store as the gateway meets it in AWS, with the store itself
 * untouched: DynamoDB Local, unlike DynamoDB, can lose a write it acknowledged when its process is
 * stopped, which is no fault of the gateway's.
 */
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpOutage {
  /** `http://127.0.0.1:{port}` */
  url: string;
  cut(): void;
  restore(): void;
  stop(): Promise<void>;
}

export async function startTcpOutage(target: string): Promise<TcpOutage> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => {
      down = true;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    restore: () => {
      down = false;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
