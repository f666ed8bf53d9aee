-- For the rest of this transaction, every statement is planned for the values it is given: the inbox page's
-- filters are parameters that may be null, and only a plan made for the given values can take the index that
-- holds a filter's conflicts (schema 16) or see that a null filter filters nothing.
SELECT set_config('plan_cache_mode', 'force_custom_plan', true)
