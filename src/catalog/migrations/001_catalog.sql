-- Sources, endpoints and access tokens, shared by every Sawmill instance. Each record is kept
-- whole as JSONB (the same shape the file catalog stores), with the columns lookups and
-- uniqueness need beside it. Ids come from one sequence, as the file catalog's next_id.

CREATE SEQUENCE sawmill_catalog_ids;

CREATE TABLE sawmill_sources (
  id bigint PRIMARY KEY,
  token uuid NOT NULL UNIQUE,
  owner_id bigint NOT NULL,
  name text NOT NULL,
  record jsonb NOT NULL,
  UNIQUE (owner_id, name)
);

CREATE TABLE sawmill_endpoints (
  id bigint PRIMARY KEY,
  token uuid NOT NULL UNIQUE,
  owner_id bigint NOT NULL,
  name text NOT NULL,
  record jsonb NOT NULL,
  UNIQUE (owner_id, name)
);

CREATE TABLE sawmill_access_tokens (
  id bigint PRIMARY KEY,
  owner_id bigint NOT NULL,
  key_hash text NOT NULL UNIQUE,
  record jsonb NOT NULL
);

-- One-off events of the deployment (first start provisioning).
CREATE TABLE sawmill_flags (
  name text PRIMARY KEY,
  set_at timestamptz NOT NULL DEFAULT now()
);

-- Every change is announced, so each instance's in-memory replica follows within milliseconds.
CREATE FUNCTION sawmill_catalog_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sawmill_catalog', TG_TABLE_NAME || ':' || COALESCE(NEW.id, OLD.id)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER sawmill_sources_notify AFTER INSERT OR UPDATE OR DELETE ON sawmill_sources
  FOR EACH ROW EXECUTE FUNCTION sawmill_catalog_notify();
CREATE TRIGGER sawmill_endpoints_notify AFTER INSERT OR UPDATE OR DELETE ON sawmill_endpoints
  FOR EACH ROW EXECUTE FUNCTION sawmill_catalog_notify();
CREATE TRIGGER sawmill_access_tokens_notify AFTER INSERT OR UPDATE OR DELETE ON sawmill_access_tokens
  FOR EACH ROW EXECUTE FUNCTION sawmill_catalog_notify();
