package io.mergesynthesis.service.db;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.db.DataSourceFactory;
import java.util.Optional;

/**
 * The login that applies the schema migrations, when it is not the one the service runs as (docs/adr/0056).
 *
 * <p>The migrating login owns the tables and functions; the runtime login ({@code database.user}) then owns
 * nothing and may change no schema: it works through the service's roles and the functions they may call. With
 * no {@code user} here the runtime login migrates as it always did, which is what the embedded database and a
 * one-command start need. The {@code url} defaults to {@code database.url}: give one when the runtime goes
 * through a pooler and the migrations should not.
 */
public final class MigrationLogin {

    private String url = "";
    private String user = "";
    private String password = "";

    @JsonProperty
    public String getUrl() {
        return url;
    }

    @JsonProperty
    public void setUrl(String url) {
        this.url = url == null ? "" : url;
    }

    @JsonProperty
    public String getUser() {
        return user;
    }

    @JsonProperty
    public void setUser(String user) {
        this.user = user == null ? "" : user;
    }

    @JsonProperty
    public void setPassword(String password) {
        this.password = password == null ? "" : password;
    }

    /** Whether a login of its own applies the migrations. */
    public boolean configured() {
        return !user.isBlank();
    }

    /** Where and as whom the migrations run: this login when configured, else the runtime's own. */
    public DataSourceFactory migrating(DataSourceFactory runtime) {
        if (!configured()) {
            return runtime;
        }
        DataSourceFactory migrating = new DataSourceFactory();
        migrating.setDriverClass(runtime.getDriverClass());
        migrating.setUrl(url.isBlank() ? runtime.getUrl() : url);
        migrating.setUser(user);
        migrating.setPassword(password);
        return migrating;
    }

    /** The runtime login the migrations grant the service's roles to, when another login migrates. */
    public Optional<String> runtimeLogin(DataSourceFactory runtime) {
        return configured() && !user.equals(runtime.getUser()) ? Optional.ofNullable(runtime.getUser())
                : Optional.empty();
    }
}
