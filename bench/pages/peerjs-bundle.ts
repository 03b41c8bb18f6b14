// peerjs's prebuilt browser bundle for the benchmark pages: its CommonJS dependencies do not
// load in the dev server (TESTING.md), so the pages fetch the bundle on first use, as a
// bundler's chunk would be.
import type { Peer } from 'peerjs';

declare global {
  interface Window {
    peerjs?: { Peer: typeof Peer };
  }
}

/** Loads peerjs's bundle once and gives its Peer class. */
export function loadPeerJsBundle(): Promise<typeof Peer> {
  return new Promise((resolve, reject) => {
    if (window.peerjs) return resolve(window.peerjs.Peer);
    const script = document.createElement('script');
    script.src = '/node_modules/peerjs/dist/peerjs.min.js';
    script.onload = () => resolve(window.peerjs!.Peer);
    script.onerror = reject;
    document.head.append(script);
  });
}
