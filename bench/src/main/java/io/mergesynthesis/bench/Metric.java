package io.mergesynthesis.bench;

/**
 * Every figure the benchmark reports, with its key in {@code results.json}, its label in the printed table
 * and its unit. A run reports each one, as a number or as skipped with the reason.
 */
enum Metric {
    DRAIN_ONE_REPLICA("drain_1_replica_per_s", "Drain, 1 replica x 4 workers (stub)", "conflicts/s"),
    DRAIN_THREE_REPLICAS("drain_3_replicas_per_s", "Drain, 3 replicas x 4 workers (stub)", "conflicts/s"),
    CEILING("ceiling_per_s", "Database ceiling: the pool's SQL, plain JDBC, 4 threads", "conflicts/s"),
    POOL_TO_CEILING("pool_to_ceiling_ratio", "HEADLINE pool (1 replica) / ceiling", "ratio"),
    CEILING_IN_HAND("ceiling_4_in_flight_per_s", "Ceiling at the pool's bound: 4 threads x 1 conflict",
            "conflicts/s"),
    POOL_TO_CEILING_IN_HAND("pool_to_ceiling_4_in_flight_ratio", "Pool (1 replica) / ceiling at 4 in flight",
            "ratio"),
    PEER("db_scheduler_per_s", "Peer: db-scheduler, lock-and-fetch, 4 threads", "tasks/s"),
    POOL_TO_PEER("pool_to_db_scheduler_ratio", "Pool (1 replica) / db-scheduler", "ratio"),
    PICKUP_P50("pickup_latency_p50_ms", "Pickup latency, idle pool, p50", "ms"),
    PICKUP_P99("pickup_latency_p99_ms", "Pickup latency, idle pool, p99", "ms"),
    SCALE_POOL("scale_pool_largest_to_smallest_ratio", "Scale: pool at most history / at least", "ratio"),
    SCALE_CEILING("scale_ceiling_largest_to_smallest_ratio", "Scale: ceiling at most history / at least",
            "ratio"),
    IDLE("idle_queries_per_s", "Idle replica: transactions it sends the database", "tx/s"),
    SLOW_THROUGHPUT("slow_synth_per_s", "Slow synthesizer (200 ms): drain", "conflicts/s"),
    SLOW_TARGET("slow_synth_target_per_s", "Slow synthesizer: target, workers / 0.2 s", "conflicts/s"),
    SLOW_PEAK_CONNECTIONS("slow_synth_peak_connections", "Slow synthesizer: peak connections in use",
            "connections"),
    SLOW_MEAN_CONNECTIONS("slow_synth_mean_connections", "Slow synthesizer: mean connections in use",
            "connections"),
    INBOX_P50("inbox_p50_ms", "GET /v1/conflicts, one org of many, p50", "ms"),
    INBOX_P99("inbox_p99_ms", "GET /v1/conflicts, one org of many, p99", "ms"),
    CONFLICT_READS("conflict_reads_per_s", "GET /v1/conflicts/{id}, 8 clients, token cache on (5s)",
            "requests/s"),
    CONFLICT_READS_UNCACHED("conflict_reads_uncached_per_s",
            "GET /v1/conflicts/{id}, 8 clients, token cache off (0s)", "requests/s"),
    TOKEN_CACHE_GAIN("token_cache_on_to_off_ratio", "Token cache: reads/s on / off", "ratio"),
    CONFLICT_READ_TX("conflict_read_transactions", "GET /v1/conflicts/{id}, token cache on: database transactions",
            "per request"),
    CONFLICT_READ_UNCACHED_TX("conflict_read_uncached_transactions",
            "GET /v1/conflicts/{id}, token cache off: database transactions", "per request"),
    EXPORT_RATE("export_events_per_s", "GET /v1/events, NDJSON, following the cursor", "events/s"),
    EXPORT_HEAP_MIN("export_heap_min_mib", "Export: replica heap used, min", "MiB"),
    EXPORT_HEAP_MAX("export_heap_max_mib", "Export: replica heap used, max", "MiB");

    final String key;
    final String label;
    final String unit;

    Metric(String key, String label, String unit) {
        this.key = key;
        this.label = label;
        this.unit = unit;
    }
}
