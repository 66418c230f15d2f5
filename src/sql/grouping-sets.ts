/** The grouping sets ROLLUP and CUBE stand for, over items that are each a list of key positions. */

/** CUBE of n items is 2^n grouping sets. */
export const MAX_CUBE_ITEMS = 10;

/** Every prefix of the items, longest first, down to (). */
export function rollupSets(items: number[][]): number[][] {
  return items.map((_, index) => items.slice(0, items.length - index).flat()).concat([[]]);
}

/** Every subset of the items, all of them first. */
export function cubeSets(items: number[][]): number[][] {
  const sets: number[][] = [];
  for (let mask = (1 << items.length) - 1; mask >= 0; mask--) sets.push(items.filter((_, index) => mask & (1 << index)).flat());
  return sets;
}
