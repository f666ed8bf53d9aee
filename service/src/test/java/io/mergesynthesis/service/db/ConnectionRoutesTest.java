package io.mergesynthesis.service.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.db.DataSourceFactory;
import io.mergesynthesis.service.db.ConnectionRoutes.Pooler;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Which URL each connection takes behind a transaction pooler, and what is refused there. */
class ConnectionRoutesTest {

    private static final String[] HOSTS = {"localhost:6432", "pgbouncer.db:6432", "10.0.0.5",
        "primary.db:5432,standby.db:5432"};
    private static final String[] PARAMETERS = {"sslmode=require", "targetServerType=primary",
        "ApplicationName=ms", "connectTimeout=5", "hostRecheckSeconds=2"};

    @Test
    void behindATransactionPoolerEveryUrlGetsPrepareThresholdZeroOnceAndKeepsTheRest() {
        Random random = new Random(325L);
        ConnectionRoutes routes = new ConnectionRoutes(Pooler.TRANSACTION, "");
        for (int i = 0; i < 300; i++) {
            List<String> parameters = someParameters(random);
            String url = url(random, parameters);
            String pooled = routes.pooledUrl(url);
            assertThat(pooled).as(url).startsWith(url);
            assertThat(count(pooled, "prepareThreshold=0")).as(pooled).isEqualTo(1);
            assertThat(pooled.chars().filter(c -> c == '?').count()).as(pooled).isEqualTo(1);
            parameters.forEach(parameter -> assertThat(pooled).contains(parameter));
            // Applying it twice changes nothing.
            assertThat(routes.pooledUrl(pooled)).isEqualTo(pooled);
        }
    }

    @Test
    void withoutAPoolerTheUrlIsLeftAsItIs() {
        Random random = new Random(326L);
        ConnectionRoutes routes = new ConnectionRoutes(Pooler.NONE, "");
        for (int i = 0; i < 100; i++) {
            String url = url(random, someParameters(random));
            assertThat(routes.pooledUrl(url)).isEqualTo(url);
        }
        assertThat(new ConnectionRoutes(Pooler.TRANSACTION, "").pooledUrl("embedded")).isEqualTo("embedded");
    }

    @Test
    void serverSidePreparedStatementsAskedForBehindATransactionPoolerAreRefusedNamingTheFix() {
        ConnectionRoutes routes = new ConnectionRoutes(Pooler.TRANSACTION, "");
        for (String threshold : List.of("5", "1", "-1", "")) {
            DataSourceFactory database = new DataSourceFactory();
            database.setUrl("jdbc:postgresql://localhost:6432/ms?prepareThreshold=" + threshold + "&sslmode=disable");
            assertThatThrownBy(() -> routes.applyTo(database))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prepareThreshold=" + threshold + ",")
                    .hasMessageContaining("use prepareThreshold=0");
        }
        DataSourceFactory zero = new DataSourceFactory();
        zero.setUrl("jdbc:postgresql://localhost:6432/ms?PREPARETHRESHOLD=0");
        routes.applyTo(zero);
        assertThat(zero.getUrl()).isEqualTo("jdbc:postgresql://localhost:6432/ms?PREPARETHRESHOLD=0");
    }

    @Test
    void theListenerTakesTheListenUrlElseTheDatabaseUrlElsePollsBehindATransactionPooler() {
        DataSourceFactory database = new DataSourceFactory();
        database.setUrl("jdbc:postgresql://pgbouncer:6432/ms");
        String direct = "jdbc:postgresql://primary:5432/ms";

        assertThat(new ConnectionRoutes(Pooler.TRANSACTION, direct).listenUrl(database)).contains(direct);
        assertThat(new ConnectionRoutes(Pooler.TRANSACTION, "  ").listenUrl(database)).isEmpty();
        assertThat(new ConnectionRoutes(Pooler.TRANSACTION, null).listenUrl(database)).isEmpty();
        assertThat(new ConnectionRoutes(Pooler.NONE, "").listenUrl(database)).contains(database.getUrl());
        assertThat(new ConnectionRoutes(Pooler.NONE, direct).listenUrl(database)).contains(direct);
    }

    @Test
    void aListenUrlThatIsNotAPostgresqlJdbcUrlIsRefusedWithoutEchoingItsQuery() {
        assertThatThrownBy(() -> new ConnectionRoutes(Pooler.TRANSACTION, "postgres://u@h/db?password=hunter2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DATABASE_LISTEN_URL")
                .hasMessageContaining("jdbc:postgresql:")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> new ConnectionRoutes(null, ""))
                .hasMessageContaining("databasePooler must be none or transaction");
    }

    private static List<String> someParameters(Random random) {
        List<String> chosen = new ArrayList<>();
        for (String parameter : PARAMETERS) {
            if (random.nextInt(3) == 0) {
                chosen.add(parameter);
            }
        }
        return chosen;
    }

    private static String url(Random random, List<String> parameters) {
        String url = "jdbc:postgresql://" + HOSTS[random.nextInt(HOSTS.length)] + "/merge_synthesis";
        return parameters.isEmpty() ? url : url + "?" + String.join("&", parameters);
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}
