-- Records that the person :subject signed in at :now with these claims; the first sighting is kept (schema 27).
SELECT record_person_sign_in(:subject, :org, :email, :name, :role, :now)
