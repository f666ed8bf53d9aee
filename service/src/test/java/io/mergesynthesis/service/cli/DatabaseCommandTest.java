package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ResourceHelpers;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseCommandTest {

    @TempDir
    Path dir;

    @Test
    void migratesAServerWhoseLoginHasNoPassword() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        // As DATABASE_PASSWORD unset leaves it: no password at all, which trust authentication accepts.
        Path config = dir.resolve("config.yml");
        Files.writeString(config, Files.readString(Path.of(ResourceHelpers.resourceFilePath("test-config.yml")))
                .replace("url: embedded", "url: " + database.url())
                .replace("password: \"\"", "password:"));

        new MergeSynthesisApplication().run("db", "migrate", config.toString());

        // A failing command would have ended the JVM; reaching here means it succeeded. The schema is current.
        String version = database.jdbi().withHandle(h -> h.createQuery(
                "SELECT max(version) FROM flyway_schema_history WHERE success").mapTo(String.class).one());
        assertThat(version).isNotBlank();
    }
}
