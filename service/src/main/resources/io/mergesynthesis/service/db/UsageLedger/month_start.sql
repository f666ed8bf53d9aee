-- Where the current month began, by the database clock, in UTC: budgets and usage reset then.
SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
