/** The browser Dispatch client and its parts. */
export { BrowserDispatch, createDispatch, type BrowserDispatchOptions } from './dispatch.js';
export { peerConnectionsCreated } from './peer-budget.js';
export type { PeerTransportOptions } from './peer-transport.js';
export type {
  ConnectedClientsChangedHandlerCallback,
  ConnectionInfo,
  DispatchConfigurationInput,
  DispatchErrorCallback,
  DispatchMessageMetadata,
  MessageHandlerCallback,
} from './types.js';
export type { ConnectedClient, EventPayload, ShardInfo } from '../../protocol/signaling.js';
