/**
 * The ClickHouse SQL (`ch_sql`) front end: ClickHouse's grammar and semantics lowered into the
 * translator's tree, which the shared analyzer and each engine's printer take from there.
 */

import type { FrontEnd } from '../index.ts';
import { ClickHouseLowering } from './lower.ts';
import { parseClickHouseQuery } from './parse.ts';

export const clickHouseFrontEnd: FrontEnd = {
  parse(sql) {
    const { ast, typedParameters } = parseClickHouseQuery(sql);
    return { ast, lowering: (options) => new ClickHouseLowering(options, typedParameters) };
  },
};
