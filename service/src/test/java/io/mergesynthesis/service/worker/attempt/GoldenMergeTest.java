package io.mergesynthesis.service.worker.attempt;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Router;
import io.mergesynthesis.synthesis.StubRouter;
import io.mergesynthesis.synthesis.StubSynthesizer;
import io.mergesynthesis.synthesis.SuggestedMerge;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Locks the stub's output for each conflict shape byte for byte. After an intended change to the output,
 * run the tests with {@code GOLDEN_UPDATE=1} to rewrite the expected files, then review the diff.
 */
class GoldenMergeTest {

    /** The five conflict shapes the product promises fixtures for. */
    private static final List<String> SHAPES = List.of(
            "01-org-over-member-tool-call",
            "02-platform-over-org-data-export",
            "03-org-unit-over-member-knowledge-query",
            "04-member-wins-over-wildcard",
            "05-platform-default-no-loser");

    private static final boolean UPDATE = "1".equals(System.getenv("GOLDEN_UPDATE"));
    private static final Path GOLDEN_DIR = goldenDir();

    private static final ObjectMapper INPUT_READER = JsonMapper.builder().addModule(new JavaTimeModule()).build();
    private static final SuggestedMergeJson JSON = new SuggestedMergeJson();
    private static final StubSynthesizer STUB =
            new StubSynthesizer(Clock.fixed(Instant.parse("2026-11-20T12:00:00Z"), ZoneOffset.UTC));

    static List<String> shapes() {
        return SHAPES;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void stubOutputMatchesTheExpectedFile(String shape) throws Exception {
        Path dir = GOLDEN_DIR.resolve(shape);
        ConflictSnapshot conflict = INPUT_READER.readValue(dir.resolve("input.json").toFile(), ConflictSnapshot.class);
        ResolvedModel model = new StubRouter().resolve(Router.MERGE_SYNTHESIS, conflict.orgId());

        SuggestedMerge merge = STUB.synthesize(conflict, model);
        String actual = JSON.toJson(merge);
        Path expectedFile = dir.resolve("expected.json");

        if (UPDATE) {
            Files.writeString(expectedFile, actual, UTF_8);
        }
        assertThat(expectedFile).as("%s is missing; run with GOLDEN_UPDATE=1 to write it", expectedFile).exists();
        assertThat(Files.readString(expectedFile, UTF_8))
                .as("%s differs from the stub's output; if the change is intended, run with GOLDEN_UPDATE=1", expectedFile)
                .isEqualTo(actual);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void expectedFileSatisfiesTheSchema(String shape) throws Exception {
        Path dir = GOLDEN_DIR.resolve(shape);
        ConflictSnapshot conflict = INPUT_READER.readValue(dir.resolve("input.json").toFile(), ConflictSnapshot.class);

        // Checked as stored text, not as the stub's object: the file is what a synthesizer author reads.
        JsonNode expected = INPUT_READER.readTree(dir.resolve("expected.json").toFile());

        assertThat(JSON.violations(expected, conflict.conflictId())).isEmpty();
    }

    @Test
    void exactlyTheFiveShapesHaveFixtures() throws IOException {
        try (Stream<Path> entries = Files.list(GOLDEN_DIR)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrderElementsOf(SHAPES);
        }
    }

    /**
     * The build names the folder. An IDE run, or Maven started inside a module (where the build's idea of
     * the project root is the module itself), finds it by walking up to the repository root instead.
     */
    private static Path goldenDir() {
        String configured = System.getProperty("golden.dir");
        if (configured != null && !configured.isBlank() && Files.isDirectory(Path.of(configured))) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("testdata/merge_golden");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("testdata/merge_golden not found above " + Path.of("").toAbsolutePath()
                + "; set -Dgolden.dir to its location");
    }
}
