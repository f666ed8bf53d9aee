-- How many orgs have each model override; runs cross-tenant, for the health check.
SELECT model, count(*) AS orgs FROM org_synthesis_settings WHERE model IS NOT NULL GROUP BY model
