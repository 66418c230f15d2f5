import type { JsonValue } from '../../src/warehouse/types.ts';

/** A small seeded generator, so a failure names a value that can be replayed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A JSON value of mixed shapes: scalars that widen each other, lists, records with keys differing only in case. */
export function randomValue(next: () => number, depth = 0): JsonValue {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 8));
  const keys = ['a', 'b', 'A', 'c'];
  switch (pick) {
    case 0: return next() < 0.5;
    case 1: return Math.floor(next() * 100);
    case 2: return next() * 10;
    case 3: return ['x', 'y', '', 'é"\n'][Math.floor(next() * 4)]!;
    case 4: return Math.floor(next() * 3) === 0 ? 2 ** 60 : 'long';
    case 5: return Array.from({ length: Math.floor(next() * 3) }, () => randomValue(next, depth + 1));
    default: {
      const object: { [key: string]: JsonValue } = {};
      for (let i = Math.floor(next() * 3); i > 0; i--) object[keys[Math.floor(next() * keys.length)]!] = randomValue(next, depth + 1);
      return object;
    }
  }
}
