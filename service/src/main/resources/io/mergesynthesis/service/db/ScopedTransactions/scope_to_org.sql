-- Points the current tenant transaction at org :org ('' for none).
SELECT set_config('app.org_id', CAST(:org AS text), true)
