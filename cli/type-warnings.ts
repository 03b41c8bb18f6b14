/**
 * Warnings of type names no control knows (`colour`), with the likely typo.
 */
import { VCC_TYPES, type VccType } from '../protocol/customization.js';
import type { Report } from './customization-problems.js';

/** Warns of every type name no control knows in `type` (nested array items and object fields included). */
export function warnUnknownTypes(type: VccType, typePath: string, warn: Report): void {
  // Only the containers hold other types; every other kind is known by its name.
  if (type.kind === 'unknown') {
    const near = nearestTypeName(type.name);
    warn(
      typePath,
      `unknown type "${type.name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}: the editor shows a raw JSON box for it; known types: ${VCC_TYPES.join(', ')}`,
    );
  } else if (type.kind === 'array') {
    warnUnknownTypes(type.of, typePath, warn);
  } else if (type.kind === 'object') {
    for (const field of type.fields) warnUnknownTypes(field.type, `${typePath} (field "${field.key}")`, warn);
  }
}

/** The known type name within two edits of `name`, if any: the likely typo. */
function nearestTypeName(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of VCC_TYPES) {
    const distance = editDistance(name.toLowerCase(), known);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
