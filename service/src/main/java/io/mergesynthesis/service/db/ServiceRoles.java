package io.mergesynthesis.service.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * Creates the service's roles (docs/adr/0064, 0056) before Flyway applies anything, each in a transaction of its
 * own that tolerates another session creating the same role at the same moment, and grants them to the runtime
 * login when another login migrates.
 *
 * <p>Roles belong to the cluster, not to a database: two databases of one server migrated at once (staging and
 * production, or two test runs) both see a role missing and both create it, and the second {@code CREATE ROLE}
 * fails on the catalogue's unique index once the first commits. An advisory lock would not help, as it is held
 * per database. Here a loser of that race catches the error and finds the role there, so schema 1's own
 * "create when missing" finds every role in place and creates nothing. Schema 1 stays as it was applied, so
 * existing databases still validate.
 */
public final class ServiceRoles implements Callback {

    // duplicate_object: the other session committed before this one looked; unique_violation: while it looked.
    private static final String CREATE_AND_JOIN = """
            DO $roles$
            BEGIN
                BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'merge_synthesis_tenant') THEN
                        CREATE ROLE merge_synthesis_tenant NOLOGIN NOBYPASSRLS;
                    END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
                BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'merge_synthesis_sweep') THEN
                        CREATE ROLE merge_synthesis_sweep NOLOGIN BYPASSRLS;
                    END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
                BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'merge_synthesis_runtime') THEN
                        CREATE ROLE merge_synthesis_runtime NOLOGIN NOBYPASSRLS;
                    END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
                BEGIN
                    IF NOT pg_has_role(current_user, 'merge_synthesis_tenant', 'MEMBER') THEN
                        EXECUTE format('GRANT merge_synthesis_tenant TO %I', current_user);
                    END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
                BEGIN
                    IF NOT pg_has_role(current_user, 'merge_synthesis_sweep', 'MEMBER') THEN
                        EXECUTE format('GRANT merge_synthesis_sweep TO %I', current_user);
                    END IF;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
                END;
            END
            $roles$""";

    // A runtime login of its own gets the three roles; the login must exist (the operator creates it).
    private static final String GRANT_TO_RUNTIME = """
            DO $grant$
            DECLARE
                role_name text;
            BEGIN
                FOREACH role_name IN ARRAY ARRAY['merge_synthesis_tenant', 'merge_synthesis_sweep',
                                                 'merge_synthesis_runtime'] LOOP
                    IF NOT pg_has_role('%1$s', role_name, 'MEMBER') THEN
                        EXECUTE format('GRANT %%I TO %%I', role_name, '%1$s');
                    END IF;
                END LOOP;
            END
            $grant$""";

    private final String runtimeLogin;

    /** Roles for the login that migrates, which also runs the service. */
    public ServiceRoles() {
        this(null);
    }

    /** @param runtimeLogin the login the service runs as when another one migrates; null when it is the same */
    public ServiceRoles(String runtimeLogin) {
        this.runtimeLogin = runtimeLogin;
    }

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        Connection connection = context.getConnection();
        try (Statement statement = connection.createStatement()) {
            statement.execute(CREATE_AND_JOIN);
            if (runtimeLogin != null) {
                statement.execute(GRANT_TO_RUNTIME.formatted(runtimeLogin.replace("'", "''")));
            }
            // Committed at once, so that a concurrent migration's check sees the roles as soon as possible.
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the service's database roles: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCallbackName() {
        return "service roles";
    }
}
