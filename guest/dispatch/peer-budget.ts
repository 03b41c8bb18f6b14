/**
 * The page-wide budget of RTCPeerConnections. Chrome lets a page create 500
 * in its lifetime; a budget (default 400, shared by every client in the page,
 * and by every copy of the library through a global symbol) keeps churn from
 * reaching that. Apart because it belongs to the page, not to one mesh: every
 * transport of every client in the page spends from the same count.
 */

const BUDGET_KEY = Symbol.for('platform-kit.rtc-peer-connections');

/** RTCPeerConnections made by Platform Kit in this page so far (shared across copies of the library). */
export function peerConnectionsCreated(): number {
  return (globalThis as { [BUDGET_KEY]?: number })[BUDGET_KEY] ?? 0;
}

/** Counts one more RTCPeerConnection made (or accepted) in this page. */
export function spendPeerConnection(): void {
  const holder = globalThis as { [BUDGET_KEY]?: number };
  holder[BUDGET_KEY] = (holder[BUDGET_KEY] ?? 0) + 1;
}
