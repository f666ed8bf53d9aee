package io.mergesynthesis.service.worker.batch;

import io.dropwizard.lifecycle.Managed;
import io.mergesynthesis.llm.LlmSettings;
import io.mergesynthesis.llm.LlmSynthesizer;
import io.mergesynthesis.service.db.ScopedTransactions;
import io.mergesynthesis.service.worker.SynthesisMetrics;
import io.mergesynthesis.service.worker.attempt.MergeAcceptance;
import io.mergesynthesis.service.worker.attempt.SuggestedMergeJson;
import io.mergesynthesis.service.worker.policy.RetryPolicy;
import io.mergesynthesis.synthesis.Router;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch lane of a replica (docs/adr/0072-the-batch-lane.md): two threads, one that every round sends the
 * conflicts waiting in the lane ({@link BatchSender}), one that polls the batches that are due and stores the
 * results of those ended ({@link BatchPoller}), so that storing a large batch's results never holds back the next
 * batch. Every replica runs one; the rows decide which replica does what, so any of them may die at any point.
 */
public final class BatchLane implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(BatchLane.class);
    /** A round at least this often, so that conflicts newly in the lane are not left for a whole poll interval. */
    static final Duration LONGEST_ROUND = Duration.ofSeconds(5);

    private final BatchSender sender;
    private final BatchPoller poller;
    private final Runnable gauge;
    private final Duration round;
    private final List<Thread> threads = new ArrayList<>(); // guarded by this
    private volatile boolean running;

    BatchLane(BatchSender sender, BatchPoller poller, Runnable gauge, Duration round) {
        this.sender = sender;
        this.poller = poller;
        this.gauge = gauge;
        this.round = round;
    }

    /**
     * @param owner         this replica's name, which holds the batches it polls
     * @param retries       when a conflict whose request failed in a batch is tried again, and when it has had
     *                      enough
     * @param synthesizer   the interactive synthesizer that repairs or escalates a batch answer, with the router
     *                      that gives an org's escalation model
     */
    public static BatchLane of(ScopedTransactions transactions, LlmSettings llm, SynthesisMetrics metrics,
                               CollectorRegistry registry, String owner, RetryPolicy retries,
                               LlmSynthesizer synthesizer, Router router) {
        BatchMetrics batchMetrics = new BatchMetrics(registry);
        BatchRows rows = new BatchRows(transactions);
        BatchClients clients = new BatchClients();
        MergeAcceptance acceptance = new MergeAcceptance(new SuggestedMergeJson(), metrics);
        int maxAnswerBytes = llm.getProviders().values().stream()
                .mapToInt(p -> p.getMaxAnswerBytes()).max().orElse(64 * 1024);
        BatchResults results = new BatchResults(transactions, rows, acceptance, retries, maxAnswerBytes,
                new BatchSecondPass(synthesizer, router, llm.getEscalateBelow()));
        Duration poll = llm.getBatch().getPollInterval();
        Set<String> providers = llm.getProviders().entrySet().stream()
                .filter(provider -> BatchRoute.takesBatches(provider.getValue()))
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        return new BatchLane(new BatchSender(rows, llm, clients, acceptance, batchMetrics, Clock.systemUTC()),
                new BatchPoller(rows, llm, clients, new BatchAdoption(), results, owner, batchMetrics),
                () -> batchMetrics.waiting(providers, rows.requestsWaiting()),
                poll.compareTo(LONGEST_ROUND) < 0 ? poll : LONGEST_ROUND);
    }

    /** Whether any configured provider takes batches. */
    public static boolean hasProviderThatBatches(LlmSettings llm) {
        return llm.getProviders().values().stream().anyMatch(BatchRoute::takesBatches);
    }

    /** What waits in the lane is sent: a batch for each org with conflicts waiting. */
    private void sendRound() throws InterruptedException {
        sender.sendWaiting();
    }

    /** Every batch due is polled, and the results of those ended stored. */
    private void pollRound() throws InterruptedException {
        while (poller.pollOnce()) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        gauge.run();
    }

    /** One round of one of the lane's two jobs. */
    private interface Round {
        void run() throws InterruptedException;
    }

    @Override
    public synchronized void start() {
        running = true;
        threads.add(new Thread(() -> runUntilStopped("sending", this::sendRound), "batch-lane-send"));
        threads.add(new Thread(() -> runUntilStopped("polling", this::pollRound), "batch-lane-poll"));
        for (Thread thread : threads) {
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void runUntilStopped(String job, Round work) {
        while (running) {
            try {
                work.run();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // The database or a provider away for a moment: the rows keep every batch's place for the next round.
                LOG.warn("a round of the batch lane's {} failed; the next one starts in {}", job, round, e);
            }
            try {
                synchronized (this) {
                    if (running) {
                        wait(round.toMillis());
                    }
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void stop() throws InterruptedException {
        List<Thread> stopping;
        synchronized (this) {
            this.running = false;
            notifyAll();
            stopping = List.copyOf(threads);
            threads.clear();
        }
        for (Thread thread : stopping) {
            thread.interrupt();
        }
        for (Thread thread : stopping) {
            thread.join(Duration.ofSeconds(10).toMillis());
        }
    }
}
