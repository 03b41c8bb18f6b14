/**
 * The shard's shared state on the backend: the same client as the browser's
 * (guest/state/shard-state.ts), attached to a `PlatformBackend.Dispatch`, so
 * a backend reads and changes the state a template sees.
 */
import { attachShardState, type ShardState } from '../guest/state/shard-state.js';
import type { Dispatch } from './backend-dispatch.js';

/** Attaches to a backend dispatch. One ShardState per dispatch (a second call returns the same). */
export function shardState(dispatch: Dispatch): ShardState {
  return attachShardState(dispatch);
}
