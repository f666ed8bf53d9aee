-- Records a use of the token whose SHA-256 is :hash now, unless another replica recorded one in the last minute;
-- true when it did (schema 22).
SELECT record_token_use(:hash)
