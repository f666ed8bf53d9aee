package io.mergesynthesis.service.testing;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import io.mergesynthesis.service.MergeSynthesisApplication;
import io.mergesynthesis.service.MergeSynthesisConfiguration;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * One command run in-process as {@code java -jar} would run it, with its two streams captured. A present
 * {@code failure} is what makes the real process exit non-zero.
 */
public record CommandRun(Optional<Throwable> failure, String out, String err) {

    public static CommandRun run(BiFunction<PrintStream, PrintStream, Command> command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        Bootstrap<MergeSynthesisConfiguration> bootstrap = new Bootstrap<>(new MergeSynthesisApplication());
        bootstrap.addCommand(command.apply(stdout, stderr));
        Optional<Throwable> failure = new Cli(new JarLocation(MergeSynthesisApplication.class), bootstrap, stdout,
                stderr).run(args);
        return new CommandRun(failure, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public List<String> outLines() {
        return out.lines().toList();
    }

    public String lastOutLine() {
        List<String> lines = outLines();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    /** The tests' configuration pointed at {@code url}, written to {@code dir}, with more YAML appended. */
    public static Path config(Path dir, String url, String... moreYaml) throws IOException {
        Path config = Files.createTempFile(dir, "config", ".yml");
        String text = Files.readString(Path.of(CommandRun.class.getResource("/test-config.yml").getPath()))
                .replace("url: embedded", "url: " + url);
        Files.writeString(config, text + String.join("\n", moreYaml) + "\n");
        return config;
    }
}
