-- merge-synthesis schema, version 23: the service can run as a login that owns nothing
-- (docs/adr/0056-a-migration-login-and-a-runtime-login.md).
--
-- Until now one login migrated and ran the service, and so owned every table: a bug or an injected statement
-- running as that login could alter or drop the schema. Now a login of its own may migrate (migration.user) while
-- the service runs as another, which gets the service's roles and merge_synthesis_runtime and nothing else:
--
--   - the partition upkeep, the one schema change at run time, goes through its two entry functions, which now run
--     as their owner (SECURITY DEFINER, search_path fixed); the runtime may call them and nothing under them;
--   - minting, listing and revoking tokens (the token command and the operator's page) need the token table
--     itself: reading it, adding rows and setting revoked_at, nothing more.
--
-- With one login for both, as before, that login owns everything and these grants change nothing for it.

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'merge_synthesis_runtime') THEN
        CREATE ROLE merge_synthesis_runtime NOLOGIN NOBYPASSRLS;
    END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO merge_synthesis_runtime;

GRANT SELECT, INSERT ON api_tokens TO merge_synthesis_runtime;
GRANT UPDATE (revoked_at) ON api_tokens TO merge_synthesis_runtime;

ALTER FUNCTION create_month_partitions_ahead(integer) SECURITY DEFINER SET search_path = public, pg_temp;
ALTER FUNCTION drop_expired_month_partitions(integer, boolean) SECURITY DEFINER SET search_path = public, pg_temp;
GRANT EXECUTE ON FUNCTION create_month_partitions_ahead(integer), drop_expired_month_partitions(integer, boolean)
    TO merge_synthesis_runtime;
