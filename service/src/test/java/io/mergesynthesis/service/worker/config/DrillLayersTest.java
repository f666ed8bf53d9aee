package io.mergesynthesis.service.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.Duration;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import io.mergesynthesis.service.worker.drill.FaultsFactory;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.StubSynthesizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drill wrappers sit on the attempt's path only when a drill setting asks for them: in a normal run the
 * worker calls the configured synthesizer itself, with no layer in between.
 */
class DrillLayersTest {

    private static final String DRILL_PACKAGE = "io.mergesynthesis.service.worker.drill";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-20T10:15:00Z"), ZoneOffset.UTC);
    private static final SynthesizerCatalog CATALOG = SynthesizerCatalog.discover();

    @Test
    void theDefaultConfigurationGivesTheBareSynthesizer() {
        MergeSynthesizer synthesizer = new MergeSynthesisConfiguration().getSynthesis()
                .synthesizer(CATALOG, "replica-a", CLOCK);

        assertThat(synthesizer).isExactlyInstanceOf(StubSynthesizer.class);
    }

    @Test
    void theShippedConfigurationGivesTheBareSynthesizer() throws IOException {
        SynthesisFactory synthesis = new SynthesisFactory();
        synthesis.setFaults(shippedFaults());

        assertThat(synthesis.synthesizer(CATALOG, "replica-a", CLOCK)).isExactlyInstanceOf(StubSynthesizer.class);
    }

    @Test
    void eachDrillSettingAddsItsLayer() {
        FaultsFactory failing = new FaultsFactory();
        failing.setFailureRate(0.1);
        FaultsFactory hanging = new FaultsFactory();
        hanging.setHangRate(0.1);
        FaultsFactory slow = new FaultsFactory();
        slow.setLatency(Duration.milliseconds(200));
        FaultsFactory targeted = new FaultsFactory();
        targeted.setAlwaysFailTargets("^tool:");

        for (FaultsFactory faults : new FaultsFactory[] {failing, hanging, slow, targeted}) {
            assertThat(wrappedBy(faults)).as("a wrapper from the drill package")
                    .isNotInstanceOf(StubSynthesizer.class)
                    .extracting(s -> s.getClass().getPackageName()).isEqualTo(DRILL_PACKAGE);
        }
    }

    @Test
    void theCallLogAloneAddsTheJournal(@TempDir Path dir) {
        FaultsFactory journaled = new FaultsFactory();
        journaled.setCallLog(dir.resolve("calls.log").toString());

        MergeSynthesizer synthesizer = wrappedBy(journaled);

        assertThat(synthesizer.getClass().getPackageName()).isEqualTo(DRILL_PACKAGE);
        assertThat(synthesizer.getClass().getSimpleName()).isEqualTo("CallJournal");
        assertThat(synthesizer.name()).isEqualTo(StubSynthesizer.NAME);
    }

    private static MergeSynthesizer wrappedBy(FaultsFactory faults) {
        SynthesisFactory synthesis = new SynthesisFactory();
        synthesis.setFaults(faults);
        return synthesis.synthesizer(CATALOG, "replica-a", CLOCK);
    }

    /** {@code synthesis.faults} as the runnable configuration at the repository's root sets it. */
    private static FaultsFactory shippedFaults() throws IOException {
        JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(repositoryFile("config.yml").toFile());
        JsonNode faults = config.path("synthesis").path("faults");
        assertThat(faults.isObject()).as("config.yml sets synthesis.faults").isTrue();
        return Jackson.newObjectMapper().treeToValue(faults, FaultsFactory.class);
    }

    private static Path repositoryFile(String name) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(name)) && Files.isDirectory(dir.resolve("docs"))) {
                return dir.resolve(name);
            }
        }
        throw new IllegalStateException(name + " not found above " + Path.of("").toAbsolutePath());
    }
}
