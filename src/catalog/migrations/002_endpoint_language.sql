-- Endpoints name the language of their query (bq_sql, ch_sql or lql). Records written before
-- there was a choice are BigQuery SQL; a record naming any other language is refused, so an
-- instance never loads an endpoint it cannot run.

UPDATE sawmill_endpoints SET record = jsonb_set(record, '{language}', '"bq_sql"') WHERE NOT record ? 'language';

ALTER TABLE sawmill_endpoints ADD CONSTRAINT sawmill_endpoints_language
  CHECK (record->>'language' IN ('bq_sql', 'ch_sql', 'lql'));
