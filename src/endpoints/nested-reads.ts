import { lowerQuery } from '../sql/lower.ts';
import { parseQuery } from '../sql/parse.ts';
import { chainUses, leadingChain, mapSelects } from '../sql/unnest-chains.ts';
import type { NestedReads } from '../warehouse/types.ts';

/**
 * What a saved query reads of each source's nested records through UNNEST chains, keyed by the
 * source name as written in the query: the warehouse may keep typed copies of exactly these
 * (Warehouse.promote). SELECTs that need whole elements are left out: no copy would serve them.
 */
export function nestedReads(query: string): Map<string, NestedReads> {
  const lowered = lowerQuery(parseQuery(query), { resolveTable: (name) => name });
  const reads = new Map<string, NestedReads>();
  mapSelects(lowered.query, (select, orderBy) => {
    const chain = leadingChain(select);
    if (!chain || select.from?.base.kind !== 'source') return select;
    const uses = chainUses(select, chain, () => true, orderBy.map((item) => item.expr));
    // A chain read nowhere only repeats rows: no copy would help it (see duckdb/rewrite.ts).
    if (uses.blocked || uses.leaves.size === 0) return select;
    const entry = reads.get(select.from.base.name) ?? { records: [], leaves: [] };
    entry.records = [...new Set([...entry.records, ...chain.paths.values()])];
    entry.leaves = [...new Set([...entry.leaves, ...uses.leaves])];
    reads.set(select.from.base.name, entry);
    return select;
  });
  return reads;
}
