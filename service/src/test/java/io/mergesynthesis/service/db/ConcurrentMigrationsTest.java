package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.db.DataSourceFactory;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Roles belong to the cluster, databases do not: a staging and a production database of one PostgreSQL (or two
 * test runs) migrated at the same moment both find the service's roles missing and both create them. Each round
 * here starts from a cluster without the roles and migrates two new databases from two threads released together.
 * A server of its own, so that dropping the roles between rounds touches no other test's databases.
 */
class ConcurrentMigrationsTest {

    private static final int ROUNDS = 5;
    private static EmbeddedDatabase server;

    @BeforeAll
    static void startAServerOfItsOwn() throws IOException {
        server = EmbeddedDatabase.builder()
                .setting("fsync", "off")
                .setting("synchronous_commit", "off")
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void twoDatabasesOfOneClusterMigrateAtOnceEveryRound() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 1; round <= ROUNDS; round++) {
                dropTheServiceRoles();
                List<String> names = List.of("staging_" + round, "production_" + round);
                CyclicBarrier together = new CyclicBarrier(names.size());
                List<Future<Integer>> migrations = new ArrayList<>();
                for (String name : names) {
                    server.execute("CREATE DATABASE " + name);
                    migrations.add(threads.submit(() -> {
                        together.await();
                        return Databases.migrate(login(name));
                    }));
                }
                for (Future<Integer> migration : migrations) {
                    assertThat(migration.get(2, TimeUnit.MINUTES)).as("round " + round).isPositive();
                }
                for (String name : names) {
                    server.execute("DROP DATABASE " + name);
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static void dropTheServiceRoles() throws SQLException {
        for (String role : List.of(ScopedTransactions.TENANT_ROLE, ScopedTransactions.SWEEP_ROLE)) {
            server.execute("DROP ROLE IF EXISTS " + role);
        }
    }

    private static DataSourceFactory login(String database) {
        DataSourceFactory factory = new DataSourceFactory();
        factory.setDriverClass("org.postgresql.Driver");
        factory.setUrl(server.jdbcUrl(database));
        factory.setUser(EmbeddedDatabase.SUPERUSER);
        factory.setPassword("");
        return factory;
    }
}
