package io.mergesynthesis.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import io.mergesynthesis.harness.Replica;

/**
 * Times one page read by one caller at a time, from request sent to body fully read, after a few untimed reads.
 * The callers take turns, so that a figure for "a fleet org" is several orgs' pages, not one org's page read again
 * and again. A read that is slow stops taking samples once its time is up, with no fewer than the least given,
 * so that a page taking seconds does not hold the step for an hour; how many were taken is said with the figure.
 */
final class TimedGets {

    /** Who reads: a header that says so (a bearer token, or a web session's cookie). */
    record Caller(String header, String value) {
        static Caller bearer(String token) {
            return new Caller("Authorization", "Bearer " + token);
        }

        static Caller session(String cookie) {
            return new Caller("Cookie", cookie);
        }
    }

    /** The milliseconds of each timed read. */
    record Timed(Percentiles millis) {
        int samples() {
            return millis.count();
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int warmUp;
    private final int samples;
    private final int leastSamples;
    private final Duration budget;

    TimedGets(int warmUp, int samples, int leastSamples, Duration budget) {
        this.warmUp = warmUp;
        this.samples = samples;
        this.leastSamples = leastSamples;
        this.budget = budget;
    }

    Timed time(Replica replica, String pathAndQuery, List<Caller> callers) throws IOException, InterruptedException {
        warmUp(replica, pathAndQuery, callers, warmUp);
        double[] millis = new double[samples];
        int taken = 0;
        long deadline = System.nanoTime() + budget.toNanos();
        while (taken < samples && (taken < leastSamples || System.nanoTime() < deadline)) {
            millis[taken] = read(replica, pathAndQuery, callers.get(taken % callers.size()));
            taken++;
        }
        return new Timed(new Percentiles(java.util.Arrays.copyOf(millis, taken)));
    }

    /**
     * Untimed reads: {@code reads} of them, or fewer once a tenth of the time budget is spent (at least one), so
     * that a slow page warms up the path without taking the time its samples need.
     */
    void warmUp(Replica replica, String pathAndQuery, List<Caller> callers, int reads)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos() / 10;
        for (int i = 0; i < reads && (i == 0 || System.nanoTime() < deadline); i++) {
            read(replica, pathAndQuery, callers.get(i % callers.size()));
        }
    }

    private double read(Replica replica, String pathAndQuery, Caller caller) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(replica.api(pathAndQuery))
                .header(caller.header(), caller.value())
                .timeout(Duration.ofMinutes(2))
                .build();
        long start = System.nanoTime();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        long elapsed = System.nanoTime() - start;
        if (response.statusCode() != 200) {
            String body = new String(response.body(), StandardCharsets.UTF_8);
            throw new IOException("GET " + pathAndQuery + " answered " + response.statusCode() + ": "
                    + body.substring(0, Math.min(body.length(), 500)));
        }
        return elapsed / 1e6;
    }
}
