package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.db.DataSourceFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStartFailureTest {

    @Test
    void anEmbeddedDatabaseThatCannotStartNamesTheVariableThatAvoidsIt(@TempDir Path dir) throws Exception {
        // A data directory that is a plain file: the embedded server cannot start, as in a build without it.
        Path notADirectory = Files.writeString(dir.resolve("data"), "not a directory");
        EmbeddedDatabaseFactory settings = new EmbeddedDatabaseFactory();
        settings.setDataDirectory(notADirectory.toString());
        settings.setPort(0);
        DataSourceFactory database = new DataSourceFactory();
        database.setUrl(EmbeddedDatabaseFactory.EMBEDDED_URL);

        assertThatThrownBy(() -> Databases.prepare(database, settings))
                .hasMessageContaining("cannot start the embedded PostgreSQL")
                .hasMessageContaining("set DATABASE_URL");
    }
}
