package io.mergesynthesis.service.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.mergesynthesis.standin.StandInProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.inf.ArgumentParser;
import net.sourceforge.argparse4j.inf.Namespace;
import org.junit.jupiter.api.Test;

/**
 * Every way the documentation shows of starting the stand-in works through the command it shows: the command
 * lines in code blocks, and each flag the prose shows with a value (each of its alternatives, when it lists
 * several), through the command's own parsing and then the stand-in's.
 */
class StandInProviderCommandTest {

    private static final Pattern SHOWN_FLAG = Pattern.compile("`(--[a-z-]+ [^`]+)`");

    @Test
    void everyDocumentedCommandLineAndFlagIsTaken() throws IOException {
        List<List<String>> lines = documentedCommandLines();
        assertThat(lines).as("the docs show how to start the stand-in").isNotEmpty();
        assertThat(lines.stream().filter(line -> line.size() > 2).count())
                .as("and at least five of its flags with a value").isGreaterThanOrEqualTo(5);
        for (List<String> line : lines) {
            assertThatCode(() -> StandInProvider.parse(StandInProviderCommand.arguments(parse(line))))
                    .as("%s", line).doesNotThrowAnyException();
        }
    }

    @Test
    void aFlagTheStandInDoesNotKnowIsRefused() {
        assertThatCode(() -> parse(List.of("stand-in-provider", "--no-such-flag", "1")))
                .hasMessageContaining("unrecognized arguments");
    }

    private static Namespace parse(List<String> line) throws Exception {
        ArgumentParser parser = ArgumentParsers.newFor("merge-synthesis").build();
        StandInProviderCommand command = new StandInProviderCommand();
        command.configure(parser.addSubparsers().addParser(command.getName()));
        return parser.parseArgs(line.toArray(String[]::new));
    }

    /** The command with these flags, once for each alternative where a value lists several ({@code a|b}). */
    private static List<List<String>> each(String[] flags) {
        List<List<String>> lines = new ArrayList<>();
        lines.add(new ArrayList<>(List.of("stand-in-provider")));
        for (String token : flags) {
            List<List<String>> longer = new ArrayList<>();
            for (String alternative : token.split("\\|")) {
                for (List<String> line : lines) {
                    List<String> copy = new ArrayList<>(line);
                    copy.add(alternative);
                    longer.add(copy);
                }
            }
            lines = longer;
        }
        return lines;
    }

    /**
     * From {@code stand-in-provider} on, each line of a code block that starts the stand-in; and the command with
     * one flag for each value the prose shows.
     */
    private static List<List<String>> documentedCommandLines() throws IOException {
        Path root = Path.of("..");
        List<Path> docs = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> files = Files.list(root.resolve("docs"))) {
            files.filter(file -> file.toString().endsWith(".md")).forEach(docs::add);
        }
        List<List<String>> lines = new ArrayList<>();
        for (Path doc : docs) {
            String text = Files.readString(doc);
            boolean inBlock = false;
            for (String line : text.split("\n")) {
                if (line.strip().startsWith("```")) {
                    inBlock = !inBlock;
                } else if (inBlock && line.contains(" stand-in-provider")) {
                    String from = line.substring(line.indexOf("stand-in-provider")).replace("\\", "").strip();
                    lines.add(Arrays.asList(from.split("\\s+")));
                }
            }
            for (String paragraph : text.split("\n\\s*\n")) {
                if (!paragraph.contains("The stand-in") || paragraph.contains("```")) {
                    continue;
                }
                Matcher shown = SHOWN_FLAG.matcher(paragraph);
                while (shown.find()) {
                    lines.addAll(each(shown.group(1).split("\\s+")));
                }
            }
        }
        return lines;
    }
}
