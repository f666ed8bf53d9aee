package io.mergesynthesis.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator's guide gives one answer to "what should a readiness probe ask": the admin port's {@code /ready},
 * which the application serves (MergeSynthesisApplication) and the Kubernetes manifests probe. Every paragraph that
 * speaks of readiness must name it, and none may send the probe anywhere else.
 */
class ReadinessProbeDocsTest {

    @Test
    void everyReadinessAdviceInTheOperatorsGuideNamesTheAdminPortsReady() throws IOException {
        String guide = Files.readString(repositoryRoot().resolve("docs/operators.md"));
        List<String> advice = Arrays.stream(guide.split("\\n\\s*\\n"))
                .filter(paragraph -> paragraph.toLowerCase().contains("readiness probe")
                        || paragraph.contains("Readiness asks"))
                .toList();
        assertThat(advice).as("paragraphs of docs/operators.md about the readiness probe").isNotEmpty();
        assertThat(advice).allSatisfy(paragraph -> assertThat(paragraph).contains("`/ready`")
                .doesNotContain("openapi").doesNotContain("/v1/"));
        String deployment = Files.readString(repositoryRoot().resolve("deploy/kubernetes/deployment.yaml"));
        assertThat(deployment).containsPattern("readinessProbe:\\s+httpGet:\\s+path: /ready\\s+port: admin");
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs/operators.md")) && Files.isDirectory(dir.resolve("deploy"))) {
                return dir;
            }
        }
        throw new IllegalStateException("docs/operators.md not found above " + Path.of("").toAbsolutePath());
    }
}
