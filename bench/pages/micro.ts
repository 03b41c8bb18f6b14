/**
 * Costs of the single steps a link round trip is made of, measured in a page
 * of the template's origin (loaded into a frame by the profile diagnostic with
 * a dynamic import). Each op runs in a tight loop; the figure is ns per op.
 */
import { wrap } from 'comlink';
import { findVccType } from '../../protocol/customization.js';
import { assertPlainData, assertVccPath, clonePlain } from '../../protocol/data.js';
import { PATH } from './protocol.js';

const ITERATIONS = 20_000;

function nsPerOp(op: (i: number) => unknown): number {
  for (let i = 0; i < 2_000; i++) op(i);
  const startedAt = performance.now();
  for (let i = 0; i < ITERATIONS; i++) op(i);
  return ((performance.now() - startedAt) * 1e6) / ITERATIONS;
}

/** Runs every micro benchmark; resolves with `{ op: ns per op }`. */
export function runMicro(): Record<string, number> {
  const path = [...PATH];
  const customization = {
    version: 1 as const,
    values: { card: { title: 'Hello' } },
    editor: [{ key: 'card', name: 'Card', fields: [{ key: 'title', name: 'Title', type: 'text' }] }],
  };
  const noop = (): void => undefined;
  // A port nobody reads: postMessage serializes and queues; what the receiver pays is not in here.
  const sink = new MessageChannel();
  const remote = wrap<{ setValue(path: string[], value: string): void }>(sink.port1);
  const comlinkShaped = (i: number): unknown => ({
    id: `${i}-a1b2c3d4e5f6-0f1e2d3c4b5a-99887766`,
    type: 'APPLY',
    path: ['setValue'],
    argumentList: [
      { type: 'RAW', value: path },
      { type: 'RAW', value: `value ${i}` },
      { type: 'RAW', value: false },
    ],
  });
  const results: Record<string, number> = {
    'structuredClone(short string)': nsPerOp((i) => structuredClone(`value ${i}`)),
    'clonePlain(short string)': nsPerOp((i) => clonePlain(`value ${i}`)),
    'assertPlainData(short string)': nsPerOp((i) => assertPlainData(`value ${i}`)),
    'assertVccPath([scope, key])': nsPerOp(() => assertVccPath(path)),
    'findVccType (parses the type each call)': nsPerOp(() => findVccType(customization, path)),
    'clearTimeout(setTimeout(f, 5000))': nsPerOp(() => clearTimeout(setTimeout(noop, 5_000))),
    'crypto.randomUUID()': nsPerOp(() => crypto.randomUUID()),
    "comlink remote['setValue'] (a Proxy per access)": nsPerOp(() => remote.setValue),
    'postMessage raw {path, value}': nsPerOp((i) => sink.port2.postMessage({ path, value: `value ${i}` })),
    'postMessage comlink APPLY of 3 RAW args': nsPerOp((i) => sink.port2.postMessage(comlinkShaped(i))),
  };
  sink.port1.close();
  sink.port2.close();
  return results;
}
