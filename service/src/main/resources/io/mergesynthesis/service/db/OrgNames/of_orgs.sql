-- The names of the orgs in :orgs (an array), for a page that lists several.
SELECT org_id, name FROM org_names WHERE org_id = ANY(:orgs)
