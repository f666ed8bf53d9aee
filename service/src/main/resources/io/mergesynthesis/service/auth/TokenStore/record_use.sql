-- Records a use of token :id now, unless another replica recorded one in the last minute.
UPDATE api_tokens SET last_used_at = now()
WHERE id = :id AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
