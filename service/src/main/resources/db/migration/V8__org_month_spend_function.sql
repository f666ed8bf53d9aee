-- merge-synthesis schema, version 8: an org's month-to-date spend, as a function.
--
-- The worker reads each conflict back with its org's settings and whether the org's spend has reached its
-- budget. Written as a subquery, the sum was set up by the executor on every read, for every org, though it runs
-- only for an org that has a budget; a function call inside the CASE costs nothing until the CASE reaches it.
-- PL/pgSQL keeps the query's plan for the connection's life, so an org with a budget pays no planning per read.
--
-- It runs with the caller's rights: under an org's scope, row-level security holds the sum to that org's calls,
-- as it held the subquery. The month starts at midnight UTC on its first day, by the database clock, as
-- everywhere else the service reckons a month (UsageLedger.MONTH_START).
CREATE FUNCTION org_month_spend(org uuid) RETURNS numeric
    LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    RETURN (SELECT coalesce(sum(u.cost_usd), 0)
            FROM llm_usage_events u
            WHERE u.org_id = org
              AND u.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');
END
$$;
