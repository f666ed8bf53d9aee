-- merge-synthesis schema, version 17: an org's month of usage by model, kept as calls are recorded
-- (docs/adr/0042-counts-and-spend-kept-as-they-change.md).
--
-- GET /v1/usage and the usage page sum calls, tokens and cost by model for the month; read from the ledger, that
-- sum read every call of the org's month, which for a large org is most of a partition. The ledger's insert
-- trigger of schema 14 now also adds one row here per call recorded: rows that only add, as the conflict counts
-- are, since one org's calls of several models may be recorded by several transactions at once in any order of
-- models, and a row per model updated in place could deadlock two of them. The count fold sums each org's month
-- to one row per model, so a read is a few rows.

CREATE TABLE org_usage_by_month (
    org_id             uuid          NOT NULL,
    month              date          NOT NULL,
    provider           text          NOT NULL,
    model              text          NOT NULL,
    calls              bigint        NOT NULL,
    input_tokens       bigint        NOT NULL,
    output_tokens      bigint        NOT NULL,
    cache_read_tokens  bigint        NOT NULL,
    cache_write_tokens bigint        NOT NULL,
    cost_usd           numeric(18,9) NOT NULL
);

CREATE INDEX org_usage_by_month_org ON org_usage_by_month (org_id, month);

CREATE OR REPLACE FUNCTION add_to_org_month_spend() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO org_spend_by_month AS s (org_id, month, cost_usd, calls)
    VALUES (NEW.org_id, ledger_month(NEW.created_at), NEW.cost_usd, 1)
    ON CONFLICT (org_id, month)
        DO UPDATE SET cost_usd = s.cost_usd + excluded.cost_usd, calls = s.calls + 1;
    INSERT INTO org_usage_by_month (org_id, month, provider, model, calls, input_tokens, output_tokens,
                                    cache_read_tokens, cache_write_tokens, cost_usd)
    VALUES (NEW.org_id, ledger_month(NEW.created_at), NEW.provider, NEW.model, 1, NEW.input_tokens,
            NEW.output_tokens, NEW.cache_read_tokens, NEW.cache_write_tokens, NEW.cost_usd);
    RETURN NULL;
END
$$;

-- The usage already recorded, taken while no call can be recorded.
LOCK TABLE llm_usage_events IN SHARE MODE;
INSERT INTO org_usage_by_month (org_id, month, provider, model, calls, input_tokens, output_tokens,
                                cache_read_tokens, cache_write_tokens, cost_usd)
SELECT org_id, ledger_month(created_at), provider, model, count(*), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
  FROM llm_usage_events
 GROUP BY org_id, ledger_month(created_at), provider, model;

ALTER TABLE org_usage_by_month ENABLE ROW LEVEL SECURITY;
ALTER TABLE org_usage_by_month FORCE ROW LEVEL SECURITY;
CREATE POLICY org_usage_by_month_org_isolation ON org_usage_by_month
    USING (org_id = current_org_id())
    WITH CHECK (org_id = current_org_id());

-- Written by the trigger as whoever records the call; only the fold (the sweep identity) deletes what it sums.
GRANT SELECT, INSERT ON org_usage_by_month TO merge_synthesis_tenant, merge_synthesis_sweep;
GRANT DELETE ON org_usage_by_month TO merge_synthesis_sweep;
