-- Month-to-date cost of :org, zero when it made no call this month. A function of the schema (migration 8), so
-- that a statement which may not need the sum, such as the worker's read-back, does not set it up.
SELECT org_month_spend(:org)
