package io.mergesynthesis.service.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.jackson.Jackson;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.db.Databases;
import io.mergesynthesis.service.db.EmbeddedDatabase;
import io.mergesynthesis.service.db.ScopedTransactions;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The zero-setup path: embedded PostgreSQL, migrations, samples, and data that outlives a restart. */
class EmbeddedDefaultTest {

    @TempDir
    Path dir;

    @Test
    void startsMigratesLoadsTheFiveSamplesOnceAndKeepsThemAcrossARestart() throws Exception {
        MergeSynthesisConfiguration config = new MergeSynthesisConfiguration();
        config.getEmbeddedDatabase().setDataDirectory(dir.resolve("pg").toString());
        config.getEmbeddedDatabase().setPort(freePort());
        assertThat(config.usesEmbeddedDatabase()).isTrue();

        Set<UUID> orgs;
        try (EmbeddedDatabase first = Databases.prepare(config.getDatabase(), config.getEmbeddedDatabase())
                .orElseThrow()) {
            Databases.migrate(config.getDatabase());
            ScopedTransactions tx = Databases.transactionsForCommand(config.getDatabase());
            orgs = SampleConflicts.loadIfEmpty(tx, new ConflictIntake(tx, Jackson.newObjectMapper()), Jackson.newObjectMapper());
            assertThat(orgs).isNotEmpty();
            assertThat(countAll(tx)).isEqualTo(5);
        }

        MergeSynthesisConfiguration again = new MergeSynthesisConfiguration();
        again.getEmbeddedDatabase().setDataDirectory(dir.resolve("pg").toString());
        again.getEmbeddedDatabase().setPort(config.getEmbeddedDatabase().getPort());
        try (EmbeddedDatabase second = Databases.prepare(again.getDatabase(), again.getEmbeddedDatabase())
                .orElseThrow()) {
            Databases.migrate(again.getDatabase());
            ScopedTransactions tx = Databases.transactionsForCommand(again.getDatabase());
            assertThat(countAll(tx)).isEqualTo(5);
            assertThat(SampleConflicts.loadIfEmpty(tx, new ConflictIntake(tx, Jackson.newObjectMapper()),
                    Jackson.newObjectMapper())).isEmpty();
            assertThat(countAll(tx)).isEqualTo(5);
            long shapes = tx.crossTenant(h -> h.createQuery(
                    "SELECT count(DISTINCT dedup_key) FROM policy_conflicts WHERE dedup_key LIKE 'sample-%'")
                    .mapTo(Long.class).one());
            assertThat(shapes).isEqualTo(SampleConflicts.SHAPES.size());
        }
    }

    private static long countAll(ScopedTransactions tx) {
        return tx.crossTenant(h -> h.createQuery("SELECT count(*) FROM policy_conflicts").mapTo(Long.class).one());
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
