// One of the idle-50k harness's client processes: it joins clients to our
// signaling server on request and keeps them open, idle (`ws` answers the
// server's pings by itself), until its parent goes away.
//
//   argv: <port> <first client index> <in flight> [<local address>]
//   parent → child: { join: n }   join n more clients
//   child → parent: { bench: 'joined', total, ms } or { bench: 'error', message }
import type { WebSocket } from 'ws';
import { clientProtocol, joinAll } from './dispatch-servers.js';

const [portText, firstText, inFlightText, localAddress] = process.argv.slice(2);
const port = Number(portText);
let next = Number(firstText);
const inFlight = Number(inFlightText);
const protocol = clientProtocol('ours', port, localAddress);
const sockets: WebSocket[] = [];

process.on('message', (message: unknown) => {
  const count = (message as { join?: unknown }).join;
  if (typeof count !== 'number') return;
  joinAll(protocol, count, Math.min(inFlight, count), next).then(
    (joined) => {
      next += count;
      sockets.push(...joined.sockets);
      process.send?.({ bench: 'joined', total: sockets.length, ms: joined.ms });
    },
    (error: unknown) => process.send?.({ bench: 'error', message: error instanceof Error ? error.message : String(error) }),
  );
});
// The parent ends the run (or died): close nothing gracefully, the server is going away too.
process.on('disconnect', () => process.exit(0));
process.send?.({ bench: 'ready' });
