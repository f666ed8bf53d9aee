package io.mergesynthesis.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link from the README and the guides under docs/ (the decision records included) to a file of the
 * repository points at a file that exists, and a link to a section of a markdown file at a heading it has. The
 * documentation was split into several files that link to each other; a file moved or a heading renamed must
 * not leave a reader at a dead end.
 */
class DocumentationLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");
    private static final Pattern HEADING = Pattern.compile("(?m)^#+\\s+(.+?)\\s*$");

    @Test
    void everyLocalLinkResolves() throws IOException {
        Path root = repositoryRoot();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : documents(root)) {
            Matcher link = LINK.matcher(prose(file));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // a web address, not a file of ours
                }
                checked++;
                String problem = problem(file, target);
                if (problem != null) {
                    broken.add(root.relativize(file) + ": " + target + " (" + problem + ")");
                }
            }
        }
        assertThat(broken).as("links to local paths that lead nowhere").isEmpty();
        // The README alone links to its guides, screenshots and decision records: finding none means the scan broke.
        assertThat(checked).isGreaterThan(50);
    }

    @Test
    void aMissingFileOrSectionIsFound() throws IOException {
        Path readme = repositoryRoot().resolve("README.md");
        assertThat(problem(readme, "docs/no-such-guide.md")).isEqualTo("no such file");
        assertThat(problem(readme, "docs/operators.md#no-such-section")).isEqualTo("no such heading");
        assertThat(problem(readme, "docs/operators.md#failure-drills")).isNull();
        assertThat(problem(readme, "#run-it")).isNull();
    }

    private static String problem(Path from, String target) throws IOException {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String section = hash < 0 ? "" : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? from : from.getParent().resolve(path).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (!section.isEmpty() && resolved.toString().endsWith(".md") && !anchors(resolved).contains(section)) {
            return "no such heading";
        }
        return null;
    }

    /** The anchors a markdown renderer gives the file's headings: lower case, punctuation dropped, spaces as '-'. */
    private static Set<String> anchors(Path file) throws IOException {
        Set<String> anchors = new HashSet<>();
        Matcher heading = HEADING.matcher(prose(file));
        while (heading.find()) {
            anchors.add(heading.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-'));
        }
        return anchors;
    }

    /** The file without its fenced code blocks, where neither links nor headings are meant. */
    private static String prose(Path file) throws IOException {
        return FENCE.matcher(Files.readString(file)).replaceAll("");
    }

    private static List<Path> documents(Path root) throws IOException {
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        for (Path dir : List.of(root.resolve("docs"), root.resolve("docs/adr"), root.resolve("docs/performance"))) {
            try (Stream<Path> listed = Files.list(dir)) {
                listed.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
            }
        }
        return files;
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs/adr"))) {
                return dir;
            }
        }
        throw new IllegalStateException("README.md and docs/adr not found above " + Path.of("").toAbsolutePath());
    }
}
