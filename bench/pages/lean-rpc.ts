/**
 * A reference, not a proposal to ship as is: the least a request/response
 * protocol over a MessagePort can do (numeric ids, one listener, a method
 * table, no Proxy, no UUID, no timers, no checks). Measured in the same shape
 * as ours, it shows what a comlink-free wire could cost, so the price of each
 * layer on top of it can be read off.
 */

/** A call or its answer. */
type LeanMessage =
  { readonly k: 'call'; readonly id: number; readonly m: string; readonly a: readonly unknown[] } | { readonly k: 'ret'; readonly id: number; readonly v: unknown };

/** Serves `methods` on `port` and returns a caller of the other side's. */
export function leanEndpoint(
  port: MessagePort,
  methods: { readonly [name: string]: (...args: never[]) => unknown },
): { call(method: string, ...args: unknown[]): Promise<unknown> } {
  let nextId = 1;
  const pending = new Map<number, (value: unknown) => void>();
  port.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as LeanMessage;
    if (message.k === 'call') {
      const method = Object.prototype.hasOwnProperty.call(methods, message.m) ? methods[message.m] : undefined;
      const value = method ? (method as (...args: unknown[]) => unknown)(...message.a) : undefined;
      port.postMessage({ k: 'ret', id: message.id, v: value } satisfies LeanMessage);
    } else {
      const resolve = pending.get(message.id);
      pending.delete(message.id);
      resolve?.(message.v);
    }
  });
  port.start();
  return {
    call(method, ...args) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        port.postMessage({ k: 'call', id, m: method, a: args } satisfies LeanMessage);
      });
    },
  };
}
