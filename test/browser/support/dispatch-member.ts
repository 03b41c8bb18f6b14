// Drives a Dispatch member page in a cross-origin iframe (127.0.0.1 while the
// test page is on localhost), and records what it reports.
import { executeServerCommand } from '@web/test-runner-commands';

export const TEMPLATE_ORIGIN = `http://127.0.0.1:${location.port}`;

export interface Report {
  kind: string;
  data: unknown;
}
export interface ReceivedEvent {
  eventName: string;
  payload: Record<string, unknown>;
  meta: { latencyMs: number; clientId: string; userId: string | null };
}

export async function signalingUrl(): Promise<string> {
  return (await executeServerCommand<{ url: string }, object>('signaling-url', {})).url;
}
/** What the Dispatch suites on the one signaling server share; see {@link memberSuite}. */
export interface MemberSuite {
  /** The signaling server's URL (set once the suite's `before` ran). */
  server(): string;
  /** A member page on the server with the suite's default options under `options`; disposed after the test. */
  member(options?: Record<string, unknown>): Member;
}

/**
 * Call inside a `describe`: learns the server's URL before the suite, and
 * disposes every member a test made after it.
 */
export function memberSuite(defaults: Record<string, unknown> = {}): MemberSuite {
  let server = '';
  const members: Member[] = [];
  before(async () => {
    server = await signalingUrl();
  });
  afterEach(async () => {
    await Promise.all(members.splice(0).map((member) => member.dispose()));
  });
  return {
    server: () => server,
    member(options = {}) {
      const created = new Member(server, { ...defaults, ...options });
      members.push(created);
      return created;
    },
  };
}

export async function userToken(userId: string, ttlSeconds?: number): Promise<string> {
  return (await executeServerCommand<{ token: string }, object>('signaling-user-token', { userId, ttlSeconds })).token;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Like waitUntil, for a condition that must ask Node. */
export async function waitUntilAsync(condition: () => Promise<boolean>, what: string, timeoutMs = 8_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

let counter = 0;

/** One member page. */
export class Member {
  readonly tag = `m${++counter}`;
  readonly iframe: HTMLIFrameElement;
  readonly reports: Report[] = [];
  readonly #replies = new Map<number, (message: { ok: boolean; value?: unknown; error?: { code: string; message: string } }) => void>();
  #nextId = 1;
  readonly loaded: Promise<void>;
  readonly #onMessage = (event: MessageEvent) => {
    if (event.origin !== TEMPLATE_ORIGIN || event.source !== this.iframe.contentWindow) return;
    const data = event.data as { member: string; reply?: number; kind?: string; data?: unknown; ok: boolean };
    if (data.member !== this.tag) return;
    if (typeof data.reply === 'number') this.#replies.get(data.reply)?.(data);
    else if (data.kind) this.reports.push({ kind: data.kind, data: data.data });
  };

  constructor(server: string, options: Record<string, unknown> = {}) {
    const query = new URLSearchParams({ parent: location.origin, tag: this.tag, server, project: 'demo', options: JSON.stringify(options) });
    this.iframe = document.createElement('iframe');
    // Peer connections in a cross-origin iframe need this (TESTING.md).
    this.iframe.allow = 'camera; microphone';
    this.iframe.src = `${TEMPLATE_ORIGIN}/test/fixtures/dispatch/member.html?${query}`;
    window.addEventListener('message', this.#onMessage);
    document.body.append(this.iframe);
    this.loaded = waitUntil(() => this.reports.some((r) => r.kind === 'loaded'), `${this.tag} to load`, 15_000);
  }

  async command<T = unknown>(command: string, ...args: unknown[]): Promise<T> {
    await this.loaded;
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.tag}: no answer to ${command}`)), 15_000);
      this.#replies.set(id, (message) => {
        clearTimeout(timer);
        this.#replies.delete(id);
        if (message.ok) resolve(message.value as T);
        else reject(Object.assign(new Error(message.error?.message ?? 'failed'), { code: message.error?.code }));
      });
      this.iframe.contentWindow!.postMessage({ command, id, args }, TEMPLATE_ORIGIN);
    });
  }

  events(eventName?: string): ReceivedEvent[] {
    return this.reports
      .filter((r) => r.kind === 'event')
      .map((r) => r.data as ReceivedEvent)
      .filter((e) => !eventName || e.eventName === eventName);
  }
  /** What the member's onError heard, in order. */
  errors(): { code: string; message: string }[] {
    return this.reports.filter((r) => r.kind === 'error').map((r) => r.data as { code: string; message: string });
  }
  lastPresence(): { clientId: string; userId: string | null; userInfo: Record<string, unknown> }[] {
    const list = this.reports.filter((r) => r.kind === 'presence');
    return (list[list.length - 1]?.data ?? []) as { clientId: string; userId: string | null; userInfo: Record<string, unknown> }[];
  }

  async dispose(): Promise<void> {
    await this.command('disconnect').catch(() => undefined);
    window.removeEventListener('message', this.#onMessage);
    this.iframe.remove();
  }
}

export async function backendConnect(name: string, config: object = {}, events: string[] = []): Promise<{ clientId: string; shardName: string }> {
  return executeServerCommand('backend-connect', { name, config, events });
}
export async function backendEmit(name: string, eventName: string, payload: object, recipients?: string[]): Promise<void> {
  await executeServerCommand('backend-emit', { name, eventName, payload, recipients });
}
export async function backendReceived(name: string): Promise<ReceivedEvent[]> {
  return executeServerCommand('backend-received', { name });
}
export async function backendDisconnect(name: string): Promise<void> {
  await executeServerCommand('backend-disconnect', { name });
}
