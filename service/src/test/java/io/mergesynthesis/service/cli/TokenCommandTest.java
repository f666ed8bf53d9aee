package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.ResourceHelpers;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.auth.Role;
import io.mergesynthesis.service.auth.TokenStore;
import io.mergesynthesis.service.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsTheNewTokenAloneOnTheLastLineAndStoresOnlyItsHash() throws Exception {
        TestDatabase database = TestDatabase.fresh();
        Path config = dir.resolve("config.yml");
        Files.writeString(config, Files.readString(Path.of(ResourceHelpers.resourceFilePath("test-config.yml")))
                .replace("url: embedded", "url: " + database.url()));
        UUID org = UUID.randomUUID();

        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            new MergeSynthesisApplication().run("token", "create", "--role", "org_admin", "--org", org.toString(),
                    config.toString());
        } finally {
            System.setOut(original);
        }

        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        String token = lines.get(lines.size() - 1);
        assertThat(token).startsWith("msk_").doesNotContainAnyWhitespaces().hasSizeGreaterThan(40);
        var caller = new TokenStore(database.transactions()).find(token);
        assertThat(caller).hasValueSatisfying(c -> {
            assertThat(c.role()).isEqualTo(Role.ORG_ADMIN);
            assertThat(c.orgId()).isEqualTo(org);
        });
    }

    @Test
    void refusesAnOrgBoundRoleWithoutAnOrgAndAPlatformTokenWithOne() {
        TokenStore store = new TokenStore(TestDatabase.fresh().transactions());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.mint(Role.SIEM, null))
                .hasMessageContaining("--org");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.mint(Role.PLATFORM, UUID.randomUUID()))
                .hasMessageContaining("platform");
    }
}
