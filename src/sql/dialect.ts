import type { TableShape } from './catalog.ts';
import type { Query } from './ir.ts';

/**
 * One SQL engine's printer over the translator's tree. Implementations live beside their engine
 * (src/warehouse/<engine>/sql-generator.ts), each a subclass of the shared printer (printer.ts)
 * that spells what only its engine spells that way.
 */
export interface SqlDialect {
  readonly name: string;
  /**
   * Print a validated query as one statement of the engine's SQL. Parameters must stay bound
   * (never spliced): each `param` node becomes the engine's named placeholder.
   * May throw the translator's invalid_sql error for a construct the engine cannot express.
   * `output`: the query's columns as the analyzer typed them, for the values the engine must
   * encode for the reply (BYTES as base64 text, as BigQuery's REST API gives them).
   */
  generate(query: Query, output?: TableShape): string;
}
