/**
 * One entry for every language an endpoint may be written in: what a query becomes for the
 * warehouse, and how it is checked before it is saved. BigQuery and ClickHouse SQL go to the
 * translator's front end for their dialect (one tree, one analyzer, one printer per engine); LQL
 * becomes BigQuery SQL first (./lql-endpoint.ts).
 */

import type { EndpointLanguage } from '../catalog/types.ts';
import { AppError } from '../errors.ts';
import { describeQuery, translate, translateSandboxed, type SqlDialect, type TranslateContext, type Translation } from '../sql/index.ts';
import type { RecordFields } from '../warehouse/types.ts';
import { lqlToSql } from './lql-endpoint.ts';

export interface LanguageContext extends TranslateContext {
  /** The stored fields of a source the owner has, by name (LQL checks its field names against them). */
  sourceSchema(name: string): RecordFields | undefined;
}

/** A saved or draft query and the language it is written in. */
export interface WrittenQuery {
  query: string;
  language: EndpointLanguage;
}

const chSqlMissing = () => new AppError(400, 'invalid_sql', 'ch_sql (ClickHouse SQL) endpoints are not available in this build');

/** Check a query without running it; throws the translator's error (400, with line and column when known). */
export function checkQuery(written: WrittenQuery, dialect: SqlDialect, ctx: LanguageContext): void {
  if (written.language === 'bq_sql') describeQuery(written.query);
  translateQuery(written, undefined, dialect, ctx);
}

/**
 * The engine's SQL for a query; with `consumerSql` (a sandboxable endpoint's caller's `sql`), that
 * query over the endpoint's CTEs. The caller's SQL is BigQuery SQL whatever the endpoint's language.
 */
export function translateQuery(written: WrittenQuery, consumerSql: string | undefined, dialect: SqlDialect, ctx: LanguageContext): Translation {
  switch (written.language) {
    case 'bq_sql':
      return consumerSql === undefined ? translate(written.query, dialect, ctx) : translateSandboxed(written.query, consumerSql, dialect, ctx);
    case 'ch_sql':
      throw chSqlMissing();
    case 'lql': {
      const sql = lqlToSql(written.query, (name) => ctx.sourceSchema(name));
      if (consumerSql !== undefined) return translateSandboxed(sql, consumerSql, dialect, ctx);
      try {
        return translate(sql, dialect, ctx);
      } catch (error) {
        // A position in the SQL made from the LQL would point nowhere the author wrote.
        if (error instanceof AppError && error.details?.line !== undefined) throw new AppError(error.status, error.code, error.message.replace(/ \(line \d+, column \d+\)$/, ''));
        throw error;
      }
    }
  }
}
