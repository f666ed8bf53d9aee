-- Sets the org (:org, null for none) the platform session known by :hash looks at.
UPDATE web_sessions SET viewing_org_id = :org WHERE id_sha256 = :hash
