/**
 * A loopback TCP proxy that counts the bytes going each way: the benchmark puts
 * it between one client and its server to weigh what a join carries (the
 * WebSocket frames and their headers, as the network sees them).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A proxy in front of `127.0.0.1:targetPort`. */
export interface ByteProxy {
  /** The port clients connect to. */
  readonly port: number;
  /** Bytes from the server to clients, and from clients to the server, since the last reset. */
  readonly counts: { toClient: number; toServer: number };
  reset(): void;
  close(): Promise<void>;
}

export async function startByteProxy(targetPort: number): Promise<ByteProxy> {
  const counts = { toClient: 0, toServer: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => (counts.toServer += chunk.byteLength));
    upstream.on('data', (chunk: Buffer) => (counts.toClient += chunk.byteLength));
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    counts,
    reset() {
      counts.toClient = 0;
      counts.toServer = 0;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
