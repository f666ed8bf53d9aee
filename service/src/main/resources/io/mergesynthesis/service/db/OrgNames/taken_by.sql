-- The org that already bears :name, ignoring case.
SELECT org_id FROM org_names WHERE lower(name) = lower(:name)
