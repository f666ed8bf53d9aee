-- Ends the session known by :hash at :now, answering the ID token of a person's session; one already ended keeps
-- its first end and answers nothing (schema 27).
SELECT end_web_session_for_sign_out(:hash, :now) AS id_token
