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

/** Check a query without running it; throws the translator's error (400, with line and column when known). */
export function checkQuery(written: WrittenQuery, dialect: SqlDialect, ctx: LanguageContext): void {
  if (written.language !== 'lql') describeQuery(written.query, written.language);
  translateQuery(written, undefined, dialect, ctx);
}

/**
 * The engine's SQL for a query; with `consumerSql` (a sandboxable endpoint's caller's `sql`), that
 * query over the endpoint's CTEs. The caller writes in the endpoint's language (as Logflare's
 * sandboxes do), BigQuery SQL for an LQL endpoint.
 */
export function translateQuery(written: WrittenQuery, consumerSql: string | undefined, dialect: SqlDialect, ctx: LanguageContext): Translation {
  switch (written.language) {
    case 'bq_sql':
    case 'ch_sql':
      return consumerSql === undefined
        ? translate(written.query, dialect, ctx, written.language)
        : translateSandboxed(written.query, consumerSql, dialect, ctx, written.language);
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
