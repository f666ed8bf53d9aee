package io.mergesynthesis.service.db;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;

/** Where the embedded PostgreSQL keeps its data and listens, when no DATABASE_URL is configured. */
public class EmbeddedDatabaseFactory {

    /** The database {@code url} that selects the embedded PostgreSQL instead of a server of one's own. */
    public static final String EMBEDDED_URL = "embedded";

    /** True when {@code database} names no URL, or the embedded one: the embedded PostgreSQL is to be used. */
    public static boolean selectedBy(io.dropwizard.db.DataSourceFactory database) {
        String url = database.getUrl();
        return url == null || url.isBlank() || EMBEDDED_URL.equals(url);
    }

    @NotEmpty
    private String dataDirectory = "data/postgres";

    @Min(1024)
    @Max(65535)
    private int port = 54329;

    @NotEmpty
    private String databaseName = "merge_synthesis";

    @JsonProperty
    public String getDataDirectory() {
        return dataDirectory;
    }

    @JsonProperty
    public void setDataDirectory(String dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    @JsonProperty
    public int getPort() {
        return port;
    }

    @JsonProperty
    public void setPort(int port) {
        this.port = port;
    }

    @JsonProperty
    public String getDatabaseName() {
        return databaseName;
    }

    @JsonProperty
    public void setDatabaseName(String databaseName) {
        this.databaseName = databaseName;
    }
}
