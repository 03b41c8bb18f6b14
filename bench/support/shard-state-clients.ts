/**
 * The kit's side of the shard-state benchmark: backend members
 * (`PlatformBackend.Dispatch` + `shardState`, Node, relay only) of a named
 * shard on a signaling node started as a deployment runs it.
 */
import type * as Y from 'yjs';
import { PlatformBackend, shardState } from '../../signaling/index.js';
import { PROJECT, TOKEN } from '../../test/node/signaling-support.js';
import type { EventPayload } from '../../protocol/signaling.js';

/** One member: its document, when its connect() was called, and how to leave. */
export interface KitMember {
  readonly doc: Y.Doc;
  /** performance.now() when connect() was called. */
  readonly connectCalledAt: number;
  readonly dispatch: PlatformBackend.Dispatch;
  close(): Promise<void>;
}

/** Options of {@link joinKit}. */
export interface JoinKitOptions {
  /** `connect({ history })`: the shard's last n events, replayed to listeners registered before. */
  readonly history?: number;
  /** Listeners registered before connect() (the replay reaches only those). */
  readonly listen?: (dispatch: PlatformBackend.Dispatch) => void;
  /** Called with the document before connect() (to time when it holds the state). */
  readonly beforeConnect?: (doc: Y.Doc) => void;
}

/** Joins `room` through `url` with a shard state attached before connect(); resolves once it holds the whole state. */
export async function joinKit(url: string, room: string, options: JoinKitOptions = {}): Promise<KitMember> {
  const dispatch = new PlatformBackend.Dispatch({ projectId: PROJECT, projectToken: TOKEN, url, reconnectInitialDelayMs: 100 });
  const state = shardState(dispatch);
  options.listen?.(dispatch);
  options.beforeConnect?.(state.doc);
  const connectCalledAt = performance.now();
  await dispatch.connect({ shardName: room, ...(options.history !== undefined ? { history: options.history } : {}) });
  await state.whenSynced();
  return {
    doc: state.doc,
    connectCalledAt,
    dispatch,
    close: async () => {
      state.close();
      await dispatch.disconnect();
    },
  };
}

/** Emits `count` chat events of about `bytes` bytes each from `member`, in order. */
export async function emitChat(member: KitMember, count: number, bytes: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const payload: EventPayload = { n: i, text: `${i}:`.padEnd(bytes, 'x') };
    await member.dispatch.emitEvent('chat', payload);
  }
}
