package io.mergesynthesis.service.worker.drill;

import io.mergesynthesis.synthesis.CallRecorder;
import io.mergesynthesis.synthesis.ConflictSnapshot;
import io.mergesynthesis.synthesis.MergeSynthesizer;
import io.mergesynthesis.synthesis.ResolvedModel;
import io.mergesynthesis.synthesis.Synthesis;
import io.mergesynthesis.synthesis.SynthesisException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For failure drills and game days ({@code synthesis.faults.callLog}): appends one line to a file when a
 * synthesizer call starts and one when it ends, so that calls can be counted across replicas, restarts and
 * kill -9. It wraps the fault injector, so injected failures and hangs are journaled like real calls.
 *
 * <p>Each line is {@code <epoch millis> <replica> <conflict id> <event>}, the event being {@code start},
 * {@code ok}, {@code failed} or {@code interrupted}. Each line goes to the file in one append-mode write, which
 * the kernel keeps whole when several processes share the file, and which a killed process cannot leave in a
 * buffer: a call that started is in the file even if its process dies a moment later.
 */
final class CallJournal extends ForwardingSynthesizer {

    private static final Logger LOG = LoggerFactory.getLogger(CallJournal.class);

    private final String replica;
    private final Clock clock;
    private final FileOutputStream file;

    private CallJournal(MergeSynthesizer inner, String replica, Clock clock, FileOutputStream file) {
        super(inner);
        this.replica = replica;
        this.clock = clock;
        this.file = file;
    }

    /** Opens (creating if needed) {@code path} for appending. */
    static CallJournal open(MergeSynthesizer inner, String replica, Clock clock, Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            // A stream rather than a FileChannel: an interrupt (the invoke timeout) closes a channel for
            // every thread, while a stream's write ignores it.
            FileOutputStream file = new FileOutputStream(path.toFile(), true);
            LOG.info("Journaling every synthesizer call to {} (synthesis.faults.callLog)", path.toAbsolutePath());
            return new CallJournal(inner, replica, clock, file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open synthesis.faults.callLog " + path, e);
        }
    }

    @Override
    public Synthesis synthesizeWithCalls(ConflictSnapshot conflict, ResolvedModel model, CallRecorder early)
            throws SynthesisException, InterruptedException {
        record(conflict, "start");
        try {
            Synthesis synthesis = inner.synthesizeWithCalls(conflict, model, early);
            record(conflict, "ok");
            return synthesis;
        } catch (InterruptedException e) {
            record(conflict, "interrupted");
            throw e;
        } catch (SynthesisException | RuntimeException | Error e) {
            record(conflict, "failed");
            throw e;
        }
    }

    private void record(ConflictSnapshot conflict, String event) {
        byte[] line = (clock.millis() + " " + replica + " " + conflict.conflictId() + " " + event + "\n")
                .getBytes(StandardCharsets.UTF_8);
        try {
            file.write(line);
        } catch (IOException e) {
            LOG.warn("Could not write to synthesis.faults.callLog: {}", e.getMessage());
        }
    }
}
