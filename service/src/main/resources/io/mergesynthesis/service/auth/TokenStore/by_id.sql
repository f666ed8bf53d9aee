-- The token of id :id, if there is one.
SELECT id FROM api_tokens WHERE id = :id
