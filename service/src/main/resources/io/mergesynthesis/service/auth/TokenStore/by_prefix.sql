-- The tokens whose prefix is :prefix: one, or more when two secrets happen to share it.
SELECT id FROM api_tokens WHERE prefix = :prefix
