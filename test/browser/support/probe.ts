/**
 * Test support: template URLs on the second origin (127.0.0.1) and a
 * controller for the probe fixture, which reports what the real guest API
 * saw and runs commands in the template.
 */

/** The test page's own origin (http://localhost:PORT). */
export const HOST_ORIGIN = location.origin;
/** The templates' origin: the same server under another host name, so a different origin. */
export const TEMPLATE_ORIGIN = `http://127.0.0.1:${location.port}`;
/** A third origin, some other site (the whole of 127.0.0.0/8 is loopback): where a template may send the feed. */
export const THIRD_ORIGIN = `http://127.0.0.2:${location.port}`;

/** URL of a fixture page under test/fixtures/guest on the template origin. */
export function fixtureUrl(name: string, query: Record<string, string | number> = {}, origin = TEMPLATE_ORIGIN): string {
  const url = new URL(`/test/fixtures/guest/${name}.html`, origin);
  url.searchParams.set('parent', HOST_ORIGIN);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  return url.toString();
}

/** A report the probe posted. */
export interface ProbeReport {
  readonly kind: string;
  readonly data: Record<string, unknown>;
}

/** The result of a probe command: ok with a value, or the error the guest API threw. */
export interface ProbeReply {
  readonly ok: boolean;
  readonly value: unknown;
}

let nextId = 1;

/** Talks to one probe fixture, identified by its window. */
export class Probe {
  readonly reports: ProbeReport[] = [];
  readonly #target: () => Window | null;
  readonly #pending = new Map<number, (reply: ProbeReply) => void>();
  readonly #listener = (event: MessageEvent): void => {
    if (event.origin !== TEMPLATE_ORIGIN && event.origin !== HOST_ORIGIN) return;
    if (event.source !== this.#target()) return;
    const data = event.data as { probe?: string; data?: Record<string, unknown>; probeReply?: number; ok?: boolean; value?: unknown };
    if (typeof data?.probe === 'string') this.reports.push({ kind: data.probe, data: data.data ?? {} });
    if (typeof data?.probeReply === 'number') {
      this.#pending.get(data.probeReply)?.({ ok: data.ok === true, value: data.value });
      this.#pending.delete(data.probeReply);
    }
  };

  constructor(target: () => Window | null) {
    this.#target = target;
    window.addEventListener('message', this.#listener);
  }

  /** Runs a command in the template and returns what it gave. */
  command(name: string, ...args: unknown[]): Promise<ProbeReply> {
    const id = nextId++;
    const target = this.#target();
    if (!target) return Promise.reject(new Error('probe has no window'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`probe command ${name} got no reply`)), 5_000);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      target.postMessage({ probeCommand: name, id, args }, '*');
    });
  }

  /** Reports of one kind, in order. */
  of(kind: string): Record<string, unknown>[] {
    return this.reports.filter((report) => report.kind === kind).map((report) => report.data);
  }

  /** Waits until `count` reports of `kind` arrived (or fails after `timeoutMs`). */
  async waitFor(kind: string, count = 1, timeoutMs = 5_000): Promise<Record<string, unknown>[]> {
    await waitUntil(() => this.of(kind).length >= count, `${count} "${kind}" report(s)`, timeoutMs);
    return this.of(kind);
  }

  dispose(): void {
    window.removeEventListener('message', this.#listener);
  }
}

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs` naming `what`. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Awaits a promise expected to reject and returns the error. */
export async function rejectionOf(promise: Promise<unknown>): Promise<{ code?: string; name?: string; message?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; name?: string; message?: string };
  }
  throw new Error('expected a rejection');
}
