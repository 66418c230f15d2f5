/**
 * The ClickHouse SQL (`ch_sql`) front end: ClickHouse's grammar and semantics lowered into the
 * translator's tree, which the shared analyzer and each engine's printer take from there. Some
 * rewrites need the analyzer's types (toString of a time, length of an array, CAST of a float to
 * an integer); they run once it has typed the tree.
 */

import type { FrontEnd } from '../index.ts';
import { ClickHouseLowering } from './lower.ts';
import { parseClickHouseQuery } from './parse.ts';

export const clickHouseFrontEnd: FrontEnd = {
  parse(sql) {
    const { ast, typedParameters, limits } = parseClickHouseQuery(sql);
    const lowerings: ClickHouseLowering[] = [];
    return {
      ast,
      lowering: (options) => {
        const lowering = new ClickHouseLowering(options, typedParameters, { ast, limits });
        lowerings.push(lowering);
        return lowering;
      },
      afterLowering: () => lowerings.forEach((lowering) => lowering.checkComplete()),
      afterAnalysis: (typeOf) => lowerings.forEach((lowering) => lowering.afterAnalysis.forEach((fix) => fix(typeOf))),
    };
  },
};
