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
    POOL_TO_PEER("pool_to_db_scheduler_ratio", "Pool (1 replica) / db-scheduler", "ratio",
            Target.atLeast(1.0, "same database and thread count")),
    DRAIN_JVM_CPU("drain_1_replica_jvm_cpu_ms_per_conflict", "Drain, 1 replica: replica JVM CPU per conflict",
            "ms", Target.context("process CPU time over the timed drain")),
    DRAIN_POSTGRES_CPU("drain_1_replica_postgres_cpu_ms_per_conflict",
            "Drain, 1 replica: PostgreSQL CPU per conflict", "ms",
            Target.context("every server process over the timed drain")),
    PEER_JVM_CPU("db_scheduler_jvm_cpu_ms_per_task", "Peer: db-scheduler JVM CPU per task", "ms",
            Target.context("the benchmark's own process, which runs the peer")),
    PEER_POSTGRES_CPU("db_scheduler_postgres_cpu_ms_per_task", "Peer: db-scheduler PostgreSQL CPU per task", "ms",
            Target.context("every server process over the peer's drain")),
    PICKUP_P50("pickup_latency_p50_ms", "Pickup latency, idle pool, p50", "ms",
            Target.atMost(20, "durable database")),
    PICKUP_P99("pickup_latency_p99_ms", "Pickup latency, idle pool, p99", "ms",
            Target.atMost(60, "durable database")),
    RECOVERY_P50("recovery_latency_p50_ms", "Recovery: lease expiry to new attempt, full backlog, p50", "ms",
            Target.context(null)),
    RECOVERY_P99("recovery_latency_p99_ms", "Recovery: lease expiry to new attempt, full backlog, p99", "ms",
            Target.atMost(2_000, "taken over before the backlog")),
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
    EXPORT_HEAP_MAX("export_heap_max_mib", "Export: replica heap used, max", "MiB"),
    // The big-tenants step: building its database, then each read of the big org, of fleet orgs and of every
    // org, p50 and p95.
    TENANTS_LOAD("tenants_load_s", "Big tenants: building the database with COPY", "s",
            Target.context("every table's rows, before VACUUM ANALYZE")),
    TENANTS_BIG_API_FIRST_PAGE_P50(Tenant.BIG_ORG, TenantRead.API_FIRST_PAGE, 50),
    TENANTS_BIG_API_FIRST_PAGE_P95(Tenant.BIG_ORG, TenantRead.API_FIRST_PAGE, 95),
    TENANTS_BIG_API_INBOX_STATUS_P50(Tenant.BIG_ORG, TenantRead.API_INBOX_STATUS, 50),
    TENANTS_BIG_API_INBOX_STATUS_P95(Tenant.BIG_ORG, TenantRead.API_INBOX_STATUS, 95),
    TENANTS_BIG_API_SYNTHESIS_STATE_P50(Tenant.BIG_ORG, TenantRead.API_SYNTHESIS_STATE, 50),
    TENANTS_BIG_API_SYNTHESIS_STATE_P95(Tenant.BIG_ORG, TenantRead.API_SYNTHESIS_STATE, 95),
    TENANTS_BIG_API_ACTION_P50(Tenant.BIG_ORG, TenantRead.API_ACTION, 50),
    TENANTS_BIG_API_ACTION_P95(Tenant.BIG_ORG, TenantRead.API_ACTION, 95),
    TENANTS_BIG_API_TARGET_PREFIX_P50(Tenant.BIG_ORG, TenantRead.API_TARGET_PREFIX, 50),
    TENANTS_BIG_API_TARGET_PREFIX_P95(Tenant.BIG_ORG, TenantRead.API_TARGET_PREFIX, 95),
    TENANTS_BIG_API_POLICY_PREFIX_P50(Tenant.BIG_ORG, TenantRead.API_POLICY_PREFIX, 50),
    TENANTS_BIG_API_POLICY_PREFIX_P95(Tenant.BIG_ORG, TenantRead.API_POLICY_PREFIX, 95),
    TENANTS_BIG_API_SEARCH_NEARLY_ALL_P50(Tenant.BIG_ORG, TenantRead.API_SEARCH_NEARLY_ALL, 50),
    TENANTS_BIG_API_SEARCH_NEARLY_ALL_P95(Tenant.BIG_ORG, TenantRead.API_SEARCH_NEARLY_ALL, 95),
    TENANTS_BIG_API_SEARCH_SHARED_TRIGRAMS_P50(Tenant.BIG_ORG, TenantRead.API_SEARCH_SHARED_TRIGRAMS, 50),
    TENANTS_BIG_API_SEARCH_SHARED_TRIGRAMS_P95(Tenant.BIG_ORG, TenantRead.API_SEARCH_SHARED_TRIGRAMS, 95),
    TENANTS_BIG_WEB_INBOX_P50(Tenant.BIG_ORG, TenantRead.WEB_INBOX, 50),
    TENANTS_BIG_WEB_INBOX_P95(Tenant.BIG_ORG, TenantRead.WEB_INBOX, 95),
    TENANTS_BIG_WEB_INBOX_FILTERED_P50(Tenant.BIG_ORG, TenantRead.WEB_INBOX_FILTERED, 50),
    TENANTS_BIG_WEB_INBOX_FILTERED_P95(Tenant.BIG_ORG, TenantRead.WEB_INBOX_FILTERED, 95),
    TENANTS_BIG_WEB_INBOX_OLDEST_P50(Tenant.BIG_ORG, TenantRead.WEB_INBOX_OLDEST, 50),
    TENANTS_BIG_WEB_INBOX_OLDEST_P95(Tenant.BIG_ORG, TenantRead.WEB_INBOX_OLDEST, 95),
    TENANTS_BIG_USAGE_P50(Tenant.BIG_ORG, TenantRead.USAGE, 50),
    TENANTS_BIG_USAGE_P95(Tenant.BIG_ORG, TenantRead.USAGE, 95),
    TENANTS_BIG_PICKUP_P50(Tenant.BIG_ORG, TenantRead.PICKUP, 50),
    TENANTS_BIG_PICKUP_P95(Tenant.BIG_ORG, TenantRead.PICKUP, 95),
    TENANTS_FLEET_API_FIRST_PAGE_P50(Tenant.FLEET_ORG, TenantRead.API_FIRST_PAGE, 50),
    TENANTS_FLEET_API_FIRST_PAGE_P95(Tenant.FLEET_ORG, TenantRead.API_FIRST_PAGE, 95),
    TENANTS_FLEET_API_INBOX_STATUS_P50(Tenant.FLEET_ORG, TenantRead.API_INBOX_STATUS, 50),
    TENANTS_FLEET_API_INBOX_STATUS_P95(Tenant.FLEET_ORG, TenantRead.API_INBOX_STATUS, 95),
    TENANTS_FLEET_API_SYNTHESIS_STATE_P50(Tenant.FLEET_ORG, TenantRead.API_SYNTHESIS_STATE, 50),
    TENANTS_FLEET_API_SYNTHESIS_STATE_P95(Tenant.FLEET_ORG, TenantRead.API_SYNTHESIS_STATE, 95),
    TENANTS_FLEET_API_ACTION_P50(Tenant.FLEET_ORG, TenantRead.API_ACTION, 50),
    TENANTS_FLEET_API_ACTION_P95(Tenant.FLEET_ORG, TenantRead.API_ACTION, 95),
    TENANTS_FLEET_API_TARGET_PREFIX_P50(Tenant.FLEET_ORG, TenantRead.API_TARGET_PREFIX, 50),
    TENANTS_FLEET_API_TARGET_PREFIX_P95(Tenant.FLEET_ORG, TenantRead.API_TARGET_PREFIX, 95),
    TENANTS_FLEET_API_POLICY_PREFIX_P50(Tenant.FLEET_ORG, TenantRead.API_POLICY_PREFIX, 50),
    TENANTS_FLEET_API_POLICY_PREFIX_P95(Tenant.FLEET_ORG, TenantRead.API_POLICY_PREFIX, 95),
    TENANTS_FLEET_API_SEARCH_NEARLY_ALL_P50(Tenant.FLEET_ORG, TenantRead.API_SEARCH_NEARLY_ALL, 50),
    TENANTS_FLEET_API_SEARCH_NEARLY_ALL_P95(Tenant.FLEET_ORG, TenantRead.API_SEARCH_NEARLY_ALL, 95),
    TENANTS_FLEET_API_SEARCH_SHARED_TRIGRAMS_P50(Tenant.FLEET_ORG, TenantRead.API_SEARCH_SHARED_TRIGRAMS, 50),
    TENANTS_FLEET_API_SEARCH_SHARED_TRIGRAMS_P95(Tenant.FLEET_ORG, TenantRead.API_SEARCH_SHARED_TRIGRAMS, 95),
    TENANTS_FLEET_WEB_INBOX_P50(Tenant.FLEET_ORG, TenantRead.WEB_INBOX, 50),
    TENANTS_FLEET_WEB_INBOX_P95(Tenant.FLEET_ORG, TenantRead.WEB_INBOX, 95),
    TENANTS_FLEET_WEB_INBOX_FILTERED_P50(Tenant.FLEET_ORG, TenantRead.WEB_INBOX_FILTERED, 50),
    TENANTS_FLEET_WEB_INBOX_FILTERED_P95(Tenant.FLEET_ORG, TenantRead.WEB_INBOX_FILTERED, 95),
    TENANTS_FLEET_WEB_INBOX_OLDEST_P50(Tenant.FLEET_ORG, TenantRead.WEB_INBOX_OLDEST, 50),
    TENANTS_FLEET_WEB_INBOX_OLDEST_P95(Tenant.FLEET_ORG, TenantRead.WEB_INBOX_OLDEST, 95),
    TENANTS_FLEET_USAGE_P50(Tenant.FLEET_ORG, TenantRead.USAGE, 50),
    TENANTS_FLEET_USAGE_P95(Tenant.FLEET_ORG, TenantRead.USAGE, 95),
    TENANTS_FLEET_PICKUP_P50(Tenant.FLEET_ORG, TenantRead.PICKUP, 50),
    TENANTS_FLEET_PICKUP_P95(Tenant.FLEET_ORG, TenantRead.PICKUP, 95),
    TENANTS_EVERY_OPERATOR_P50(Tenant.EVERY_ORG, TenantRead.OPERATOR, 50),
    TENANTS_EVERY_OPERATOR_P95(Tenant.EVERY_ORG, TenantRead.OPERATOR, 95),
    TENANTS_EVERY_USAGE_P50(Tenant.EVERY_ORG, TenantRead.USAGE, 50),
    TENANTS_EVERY_USAGE_P95(Tenant.EVERY_ORG, TenantRead.USAGE, 95),
    TENANTS_BIG_EXPORT(Tenant.BIG_ORG, TenantRead.EXPORT, 0),
    TENANTS_EVERY_EXPORT(Tenant.EVERY_ORG, TenantRead.EXPORT, 0),
    // The provider-bound step: each scenario with one replica, then with three sharing the provider.
    PROVIDER_FAST_1_MERGED(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.MERGED),
    PROVIDER_FAST_1_TO_TARGET(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.TO_TARGET),
    PROVIDER_FAST_1_RATE_LIMITED_SHARE(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_FAST_1_HAND_BACKS(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.HAND_BACKS),
    PROVIDER_FAST_1_ATTEMPTS_LOST(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_FAST_1_MEAN_CONNECTIONS(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_FAST_1_PEAK_CONNECTIONS(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_FAST_1_CONCURRENCY(ProviderScenario.FAST_ANSWERS, 1, ProviderFigure.CONCURRENCY),
    PROVIDER_FAST_3_MERGED(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.MERGED),
    PROVIDER_FAST_3_TO_TARGET(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.TO_TARGET),
    PROVIDER_FAST_3_RATE_LIMITED_SHARE(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_FAST_3_HAND_BACKS(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.HAND_BACKS),
    PROVIDER_FAST_3_ATTEMPTS_LOST(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_FAST_3_MEAN_CONNECTIONS(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_FAST_3_PEAK_CONNECTIONS(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_FAST_3_CONCURRENCY(ProviderScenario.FAST_ANSWERS, 3, ProviderFigure.CONCURRENCY),
    PROVIDER_SLOW_1_MERGED(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.MERGED),
    PROVIDER_SLOW_1_TO_TARGET(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.TO_TARGET),
    PROVIDER_SLOW_1_RATE_LIMITED_SHARE(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_SLOW_1_HAND_BACKS(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.HAND_BACKS),
    PROVIDER_SLOW_1_ATTEMPTS_LOST(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_SLOW_1_MEAN_CONNECTIONS(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_SLOW_1_PEAK_CONNECTIONS(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_SLOW_1_CONCURRENCY(ProviderScenario.SLOW_ANSWERS, 1, ProviderFigure.CONCURRENCY),
    PROVIDER_SLOW_3_MERGED(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.MERGED),
    PROVIDER_SLOW_3_TO_TARGET(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.TO_TARGET),
    PROVIDER_SLOW_3_RATE_LIMITED_SHARE(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_SLOW_3_HAND_BACKS(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.HAND_BACKS),
    PROVIDER_SLOW_3_ATTEMPTS_LOST(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_SLOW_3_MEAN_CONNECTIONS(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_SLOW_3_PEAK_CONNECTIONS(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_SLOW_3_CONCURRENCY(ProviderScenario.SLOW_ANSWERS, 3, ProviderFigure.CONCURRENCY),
    PROVIDER_MANY_1_MERGED(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.MERGED),
    PROVIDER_MANY_1_TO_TARGET(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.TO_TARGET),
    PROVIDER_MANY_1_RATE_LIMITED_SHARE(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_MANY_1_HAND_BACKS(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.HAND_BACKS),
    PROVIDER_MANY_1_ATTEMPTS_LOST(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_MANY_1_MEAN_CONNECTIONS(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_MANY_1_PEAK_CONNECTIONS(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_MANY_1_CONCURRENCY(ProviderScenario.MANY_ANSWERS, 1, ProviderFigure.CONCURRENCY),
    PROVIDER_MANY_3_MERGED(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.MERGED),
    PROVIDER_MANY_3_TO_TARGET(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.TO_TARGET),
    PROVIDER_MANY_3_RATE_LIMITED_SHARE(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_MANY_3_HAND_BACKS(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.HAND_BACKS),
    PROVIDER_MANY_3_ATTEMPTS_LOST(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_MANY_3_MEAN_CONNECTIONS(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_MANY_3_PEAK_CONNECTIONS(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_MANY_3_CONCURRENCY(ProviderScenario.MANY_ANSWERS, 3, ProviderFigure.CONCURRENCY),
    PROVIDER_UNSTATED_1_MERGED(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.MERGED),
    PROVIDER_UNSTATED_1_TO_TARGET(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.TO_TARGET),
    PROVIDER_UNSTATED_1_RATE_LIMITED_SHARE(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_UNSTATED_1_HAND_BACKS(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.HAND_BACKS),
    PROVIDER_UNSTATED_1_ATTEMPTS_LOST(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_UNSTATED_1_MEAN_CONNECTIONS(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_UNSTATED_1_PEAK_CONNECTIONS(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_UNSTATED_1_CONCURRENCY(ProviderScenario.UNSTATED_LIMIT, 1, ProviderFigure.CONCURRENCY),
    PROVIDER_UNSTATED_3_MERGED(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.MERGED),
    PROVIDER_UNSTATED_3_TO_TARGET(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.TO_TARGET),
    PROVIDER_UNSTATED_3_RATE_LIMITED_SHARE(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.RATE_LIMITED_SHARE),
    PROVIDER_UNSTATED_3_HAND_BACKS(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.HAND_BACKS),
    PROVIDER_UNSTATED_3_ATTEMPTS_LOST(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.ATTEMPTS_LOST),
    PROVIDER_UNSTATED_3_MEAN_CONNECTIONS(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.MEAN_CONNECTIONS),
    PROVIDER_UNSTATED_3_PEAK_CONNECTIONS(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.PEAK_CONNECTIONS),
    PROVIDER_UNSTATED_3_CONCURRENCY(ProviderScenario.UNSTATED_LIMIT, 3, ProviderFigure.CONCURRENCY),
    // The provider-bound step's token rows: input or output tokens bind at the first and the fourth tier,
    // the bucket at a tenth and rounded, one replica then three sharing the key.
    TOKENS_INPUT_T1_1_USED(TokenScenario.INPUT_TIER_1, 1, TokenFigure.USED),
    TOKENS_INPUT_T1_1_RATE_LIMITED_SHARE(TokenScenario.INPUT_TIER_1, 1, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_INPUT_T1_1_ATTEMPTS_LOST(TokenScenario.INPUT_TIER_1, 1, TokenFigure.ATTEMPTS_LOST),
    TOKENS_INPUT_T1_1_LONGEST_GAP(TokenScenario.INPUT_TIER_1, 1, TokenFigure.LONGEST_GAP),
    TOKENS_INPUT_T1_1_MERGED(TokenScenario.INPUT_TIER_1, 1, TokenFigure.MERGED),
    TOKENS_INPUT_T1_3_USED(TokenScenario.INPUT_TIER_1, 3, TokenFigure.USED),
    TOKENS_INPUT_T1_3_RATE_LIMITED_SHARE(TokenScenario.INPUT_TIER_1, 3, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_INPUT_T1_3_ATTEMPTS_LOST(TokenScenario.INPUT_TIER_1, 3, TokenFigure.ATTEMPTS_LOST),
    TOKENS_INPUT_T1_3_LONGEST_GAP(TokenScenario.INPUT_TIER_1, 3, TokenFigure.LONGEST_GAP),
    TOKENS_INPUT_T1_3_MERGED(TokenScenario.INPUT_TIER_1, 3, TokenFigure.MERGED),
    TOKENS_OUTPUT_T1_1_USED(TokenScenario.OUTPUT_TIER_1, 1, TokenFigure.USED),
    TOKENS_OUTPUT_T1_1_RATE_LIMITED_SHARE(TokenScenario.OUTPUT_TIER_1, 1, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_OUTPUT_T1_1_ATTEMPTS_LOST(TokenScenario.OUTPUT_TIER_1, 1, TokenFigure.ATTEMPTS_LOST),
    TOKENS_OUTPUT_T1_1_LONGEST_GAP(TokenScenario.OUTPUT_TIER_1, 1, TokenFigure.LONGEST_GAP),
    TOKENS_OUTPUT_T1_1_MERGED(TokenScenario.OUTPUT_TIER_1, 1, TokenFigure.MERGED),
    TOKENS_OUTPUT_T1_3_USED(TokenScenario.OUTPUT_TIER_1, 3, TokenFigure.USED),
    TOKENS_OUTPUT_T1_3_RATE_LIMITED_SHARE(TokenScenario.OUTPUT_TIER_1, 3, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_OUTPUT_T1_3_ATTEMPTS_LOST(TokenScenario.OUTPUT_TIER_1, 3, TokenFigure.ATTEMPTS_LOST),
    TOKENS_OUTPUT_T1_3_LONGEST_GAP(TokenScenario.OUTPUT_TIER_1, 3, TokenFigure.LONGEST_GAP),
    TOKENS_OUTPUT_T1_3_MERGED(TokenScenario.OUTPUT_TIER_1, 3, TokenFigure.MERGED),
    TOKENS_INPUT_T4_1_USED(TokenScenario.INPUT_TIER_4, 1, TokenFigure.USED),
    TOKENS_INPUT_T4_1_RATE_LIMITED_SHARE(TokenScenario.INPUT_TIER_4, 1, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_INPUT_T4_1_ATTEMPTS_LOST(TokenScenario.INPUT_TIER_4, 1, TokenFigure.ATTEMPTS_LOST),
    TOKENS_INPUT_T4_1_LONGEST_GAP(TokenScenario.INPUT_TIER_4, 1, TokenFigure.LONGEST_GAP),
    TOKENS_INPUT_T4_1_MERGED(TokenScenario.INPUT_TIER_4, 1, TokenFigure.MERGED),
    TOKENS_INPUT_T4_3_USED(TokenScenario.INPUT_TIER_4, 3, TokenFigure.USED),
    TOKENS_INPUT_T4_3_RATE_LIMITED_SHARE(TokenScenario.INPUT_TIER_4, 3, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_INPUT_T4_3_ATTEMPTS_LOST(TokenScenario.INPUT_TIER_4, 3, TokenFigure.ATTEMPTS_LOST),
    TOKENS_INPUT_T4_3_LONGEST_GAP(TokenScenario.INPUT_TIER_4, 3, TokenFigure.LONGEST_GAP),
    TOKENS_INPUT_T4_3_MERGED(TokenScenario.INPUT_TIER_4, 3, TokenFigure.MERGED),
    TOKENS_OUTPUT_T4_1_USED(TokenScenario.OUTPUT_TIER_4, 1, TokenFigure.USED),
    TOKENS_OUTPUT_T4_1_RATE_LIMITED_SHARE(TokenScenario.OUTPUT_TIER_4, 1, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_OUTPUT_T4_1_ATTEMPTS_LOST(TokenScenario.OUTPUT_TIER_4, 1, TokenFigure.ATTEMPTS_LOST),
    TOKENS_OUTPUT_T4_1_LONGEST_GAP(TokenScenario.OUTPUT_TIER_4, 1, TokenFigure.LONGEST_GAP),
    TOKENS_OUTPUT_T4_1_MERGED(TokenScenario.OUTPUT_TIER_4, 1, TokenFigure.MERGED),
    TOKENS_OUTPUT_T4_3_USED(TokenScenario.OUTPUT_TIER_4, 3, TokenFigure.USED),
    TOKENS_OUTPUT_T4_3_RATE_LIMITED_SHARE(TokenScenario.OUTPUT_TIER_4, 3, TokenFigure.RATE_LIMITED_SHARE),
    TOKENS_OUTPUT_T4_3_ATTEMPTS_LOST(TokenScenario.OUTPUT_TIER_4, 3, TokenFigure.ATTEMPTS_LOST),
    TOKENS_OUTPUT_T4_3_LONGEST_GAP(TokenScenario.OUTPUT_TIER_4, 3, TokenFigure.LONGEST_GAP),
    TOKENS_OUTPUT_T4_3_MERGED(TokenScenario.OUTPUT_TIER_4, 3, TokenFigure.MERGED),
    // The fair-share rows: one org's single conflict behind another org's backlog, then the shares of the calls of
    // three orgs with backlogs of 100, 1,000 and 10,000, of equal weights and with the largest at weight 2.
    FAIR_ALONE("fair_share_alone_wait_s", "Fair shares: org B's one conflict, nothing else waiting", "s",
            Target.context("claimable to merged, 4 workers at 1 s a call")),
    FAIR_BEHIND_300("fair_share_behind_300_wait_s", "Fair shares: org B's one conflict behind org A's 300", "s",
            Target.atMost(3, "the next free worker, then its own call: 4 workers at 1 s a call")),
    FAIR_BEHIND_3000("fair_share_behind_3000_wait_s", "Fair shares: org B's one conflict behind org A's 3,000",
            "s", Target.atMost(3, "the next free worker, then its own call: 4 workers at 1 s a call")),
    FAIR_EQUAL_100("fair_share_equal_backlog_100_to_due_ratio",
            "Fair shares, weights 1/1/1: backlog 100, calls / due 1/3", "ratio",
            Target.within(0.8, 1.2, "calls in the window, every org waiting")),
    FAIR_EQUAL_1000("fair_share_equal_backlog_1000_to_due_ratio",
            "Fair shares, weights 1/1/1: backlog 1,000, calls / due 1/3", "ratio",
            Target.within(0.8, 1.2, "calls in the window, every org waiting")),
    FAIR_EQUAL_10000("fair_share_equal_backlog_10000_to_due_ratio",
            "Fair shares, weights 1/1/1: backlog 10,000, calls / due 1/3", "ratio",
            Target.within(0.8, 1.2, "calls in the window, every org waiting")),
    FAIR_WEIGHTED_100("fair_share_weighted_backlog_100_to_due_ratio",
            "Fair shares, weights 1/1/2: backlog 100, calls / due 1/4", "ratio",
            Target.within(0.8, 1.2, "calls in the window, every org waiting")),
    FAIR_WEIGHTED_1000("fair_share_weighted_backlog_1000_to_due_ratio",
            "Fair shares, weights 1/1/2: backlog 1,000, calls / due 1/4", "ratio",
            Target.within(0.8, 1.2, "calls in the window, every org waiting")),
    FAIR_WEIGHTED_10000("fair_share_weighted_backlog_10000_to_due_ratio",
            "Fair shares, weights 1/1/2: backlog 10,000, calls / due 1/2", "ratio",
            Target.within(0.8, 1.2, "calls in the window, every org waiting")),
    // The batch lane against the interactive lane: one org's backlog drained through each, what the ledger has for
    // it, and another org's conflicts reported meanwhile in the interactive lane.
    BATCH_LANE_INTERACTIVE_COST("batch_lane_interactive_usd_per_1000_merges",
            "Batch lane: interactive lane, cost per 1,000 merges", "USD",
            Target.context("the ledger's cost_usd, " + BatchLaneDrains.MODEL + " at its configured price")),
    BATCH_LANE_BATCH_COST("batch_lane_batch_usd_per_1000_merges", "Batch lane: batch lane, cost per 1,000 merges",
            "USD", Target.context("the ledger's cost_usd, " + BatchLaneDrains.MODEL + " at its batch price")),
    BATCH_LANE_COST_RATIO("batch_lane_batch_to_interactive_cost_ratio",
            "Batch lane: cost per merge, batch lane / interactive lane", "ratio",
            Target.within(0.45, 0.55, "the batch discount, a half unless configured")),
    BATCH_LANE_INTERACTIVE_CALLS("batch_lane_interactive_calls_per_merge",
            "Batch lane: interactive lane, ledger rows per merge", "calls"),
    BATCH_LANE_BATCH_CALLS("batch_lane_batch_calls_per_merge", "Batch lane: batch lane, ledger rows per merge",
            "calls"),
    BATCH_LANE_INTERACTIVE_INPUT("batch_lane_interactive_input_tokens_per_merge",
            "Batch lane: interactive lane, input tokens per merge", "tokens"),
    BATCH_LANE_BATCH_INPUT("batch_lane_batch_input_tokens_per_merge",
            "Batch lane: batch lane, input tokens per merge", "tokens"),
    BATCH_LANE_INTERACTIVE_OUTPUT("batch_lane_interactive_output_tokens_per_merge",
            "Batch lane: interactive lane, output tokens per merge", "tokens"),
    BATCH_LANE_BATCH_OUTPUT("batch_lane_batch_output_tokens_per_merge",
            "Batch lane: batch lane, output tokens per merge", "tokens"),
    BATCH_LANE_INTERACTIVE_DRAIN("batch_lane_interactive_drain_s",
            "Batch lane: org A's backlog drained, interactive lane", "s"),
    BATCH_LANE_BATCH_DRAIN("batch_lane_batch_drain_s", "Batch lane: org A's backlog drained, batch lane", "s"),
    BATCH_LANE_DRAIN_RATIO("batch_lane_batch_to_interactive_drain_ratio",
            "Batch lane: drain time, batch lane / interactive lane", "ratio"),
    BATCH_LANE_B_ALONE_P50("batch_lane_org_b_alone_p50_ms", "Batch lane: org B's report to merge, alone, p50", "ms",
            Target.context("interactive lane, nothing else waiting")),
    BATCH_LANE_B_ALONE_P95("batch_lane_org_b_alone_p95_ms", "Batch lane: org B's report to merge, alone, p95", "ms",
            Target.context("interactive lane, nothing else waiting")),
    BATCH_LANE_B_DURING_P50("batch_lane_org_b_during_batch_drain_p50_ms",
            "Batch lane: org B's report to merge during A's batch drain, p50", "ms",
            Target.context("reported while org A's backlog drained through the batch lane")),
    BATCH_LANE_B_DURING_P95("batch_lane_org_b_during_batch_drain_p95_ms",
            "Batch lane: org B's report to merge during A's batch drain, p95", "ms",
            Target.context("reported while org A's backlog drained through the batch lane")),
    BATCH_LANE_B_P95_RATIO("batch_lane_org_b_p95_during_to_alone_ratio",
            "Batch lane: org B's p95, during A's batch drain / alone", "ratio",
            Target.atMost(1.5, "org B keeps its pace")),
    // Workers that wait on a slow provider (T = 2 s): one replica with 4, 32 and 128 workers.
    WORKERS_4_MERGED(4, WorkerFigure.MERGED),
    WORKERS_4_TO_BOUND(4, WorkerFigure.TO_BOUND),
    WORKERS_4_TRANSACTIONS(4, WorkerFigure.TRANSACTIONS),
    WORKERS_4_HEAP_MIN(4, WorkerFigure.HEAP_MIN),
    WORKERS_4_HEAP_MAX(4, WorkerFigure.HEAP_MAX),
    WORKERS_32_MERGED(32, WorkerFigure.MERGED),
    WORKERS_32_TO_BOUND(32, WorkerFigure.TO_BOUND),
    WORKERS_32_TRANSACTIONS(32, WorkerFigure.TRANSACTIONS),
    WORKERS_32_HEAP_MIN(32, WorkerFigure.HEAP_MIN),
    WORKERS_32_HEAP_MAX(32, WorkerFigure.HEAP_MAX),
    WORKERS_128_MERGED(128, WorkerFigure.MERGED),
    WORKERS_128_TO_BOUND(128, WorkerFigure.TO_BOUND),
    WORKERS_128_TRANSACTIONS(128, WorkerFigure.TRANSACTIONS),
    WORKERS_128_HEAP_MIN(128, WorkerFigure.HEAP_MIN),
    WORKERS_128_HEAP_MAX(128, WorkerFigure.HEAP_MAX);

    final String key;
    final String label;
    final String unit;
    /** What the figure is held to, or null when the step has no stated target for it. */
    final Target target;
    final ProviderScenario scenario;
    final int replicas;
    final ProviderFigure figure;
    /** The worker count of a worker-scaling figure, 0 for every other figure. */
    final int workers;
    final WorkerFigure workerFigure;
    final TokenScenario tokens;
    final TokenFigure tokenFigure;
    /** Whose read a big-tenants figure times, and which read; null for every other figure. */
    final Tenant tenant;
    final TenantRead tenantRead;
    /** The percentile a big-tenants latency figure is; 0 for the export's rate and every other figure. */
    final int percentile;

    Metric(String key, String label, String unit) {
        this.key = key;
        this.label = label;
        this.unit = unit;
        this.target = null;
        this.scenario = null;
        this.replicas = 0;
        this.figure = null;
        this.workers = 0;
        this.workerFigure = null;
        this.tokens = null;
        this.tokenFigure = null;
        this.tenant = null;
        this.tenantRead = null;
        this.percentile = 0;
    }

    Metric(String key, String label, String unit, Target target) {
        this.key = key;
        this.label = label;
        this.unit = unit;
        this.target = target;
        this.scenario = null;
        this.replicas = 0;
        this.figure = null;
        this.workers = 0;
        this.workerFigure = null;
        this.tokens = null;
        this.tokenFigure = null;
        this.tenant = null;
        this.tenantRead = null;
        this.percentile = 0;
    }

    Metric(ProviderScenario scenario, int replicas, ProviderFigure figure) {
        this.key = "provider_" + scenario.key() + "_" + replicas + "_replica" + (replicas == 1 ? "" : "s") + "_"
                + figure.key;
        this.label = "Provider " + scenario.describe() + ", " + replicas + " replica" + (replicas == 1 ? "" : "s")
                + ": " + figure.label;
        this.unit = figure.unit;
        this.target = figure.target(scenario, replicas);
        this.scenario = scenario;
        this.replicas = replicas;
        this.figure = figure;
        this.workers = 0;
        this.workerFigure = null;
        this.tokens = null;
        this.tokenFigure = null;
        this.tenant = null;
        this.tenantRead = null;
        this.percentile = 0;
    }

    Metric(TokenScenario tokens, int replicas, TokenFigure figure) {
        this.key = "provider_tokens_" + tokens.key + "_" + replicas + "_replica" + (replicas == 1 ? "" : "s") + "_"
                + figure.key;
        this.label = "Provider, " + tokens.describe() + ", " + replicas + " replica" + (replicas == 1 ? "" : "s")
                + ": " + figure.label;
        this.unit = figure.unit;
        this.target = figure.target(tokens);
        this.scenario = null;
        this.replicas = replicas;
        this.figure = null;
        this.workers = 0;
        this.workerFigure = null;
        this.tokens = tokens;
        this.tokenFigure = figure;
        this.tenant = null;
        this.tenantRead = null;
        this.percentile = 0;
    }

    Metric(int workers, WorkerFigure figure) {
        this.key = "workers_" + workers + "_" + figure.key;
        this.label = "Workers " + workers + ", T=" + WorkerScaling.LATENCY.toSeconds() + "s: " + figure.label;
        this.unit = figure.unit;
        this.target = figure.target(workers);
        this.scenario = null;
        this.replicas = 0;
        this.figure = null;
        this.workers = workers;
        this.workerFigure = figure;
        this.tokens = null;
        this.tokenFigure = null;
        this.tenant = null;
        this.tenantRead = null;
        this.percentile = 0;
    }

    Metric(Tenant tenant, TenantRead read, int percentile) {
        this.key = "tenants_" + tenant.key + "_" + read.key + (read == TenantRead.EXPORT ? "_events_per_s"
                : "_p" + percentile + "_ms");
        this.label = "Big tenants, " + tenant.label + ": " + read.label
                + (read == TenantRead.EXPORT ? "" : ", p" + percentile);
        this.unit = read == TenantRead.EXPORT ? "events/s" : "ms";
        this.target = tenantTarget(read, percentile, 1.0);
        this.scenario = null;
        this.replicas = 0;
        this.figure = null;
        this.workers = 0;
        this.workerFigure = null;
        this.tokens = null;
        this.tokenFigure = null;
        this.tenant = tenant;
        this.tenantRead = read;
        this.percentile = percentile;
    }

    /**
     * What a big-tenants figure is held to in a database whose size allows {@code allowance} times the stated
     * p95 ({@link TenantRead#allowance}): the p95 to its bound, the p50 and the export's rate to nothing.
     */
    static Target tenantTarget(TenantRead read, int percentile, double allowance) {
        if (read == TenantRead.EXPORT) {
            return Target.context("reading the stream from its start, page after page");
        }
        if (percentile != 95) {
            return Target.context(null);
        }
        String size = String.format(java.util.Locale.ROOT, "%,d", TenantRead.TARGET_CONFLICTS) + " conflicts";
        return Target.atMost(read.p95Millis * allowance, allowance == 1.0 ? size
                : ReportTable.format(allowance) + " x the bound at " + size);
    }

    /** Every big-tenants figure. */
    static Metric[] tenants() {
        return java.util.Arrays.stream(values()).filter(m -> m.tenant != null || m == TENANTS_LOAD)
                .toArray(Metric[]::new);
    }

    /** The big-tenants figure of this tenant, read and percentile (0 for the export's rate). */
    static Metric tenant(Tenant tenant, TenantRead read, int percentile) {
        for (Metric m : values()) {
            if (m.tenant == tenant && m.tenantRead == read && m.percentile == percentile) {
                return m;
            }
        }
        throw new IllegalArgumentException("no figure " + read + " p" + percentile + " for " + tenant);
    }

    /** What the worker-scaling step reports per worker count, and the target each is held to. */
    enum WorkerFigure {
        MERGED("merged_per_s", "merged", "conflicts/s"),
        TO_BOUND("to_bound_ratio", "merged / (workers / T)", "ratio"),
        TRANSACTIONS("transactions_per_merge", "database transactions per merged conflict", "transactions"),
        HEAP_MIN("heap_min_mib", "replica heap used, min", "MiB"),
        HEAP_MAX("heap_max_mib", "replica heap used, max", "MiB");

        final String key;
        final String label;
        final String unit;

        WorkerFigure(String key, String label, String unit) {
            this.key = key;
            this.label = label;
            this.unit = unit;
        }

        Target target(int workers) {
            double bound = WorkerScaling.bound(workers);
            return switch (this) {
                case MERGED -> Target.atLeast(0.9 * bound, "90% of " + workers + " workers / T = "
                        + ReportTable.format(bound));
                case TO_BOUND -> Target.atLeast(0.9, "scales with the workers");
                case TRANSACTIONS -> Target.atMost(1.5, "every transaction on the database in the window");
                case HEAP_MIN -> Target.context(null);
                case HEAP_MAX -> Target.context("flat: compare across worker counts (512 MiB cap)");
            };
        }
    }

    /** The worker-scaling figure for this worker count and kind. */
    static Metric worker(int workers, WorkerFigure figure) {
        for (Metric m : values()) {
            if (m.workers == workers && m.workerFigure == figure) {
                return m;
            }
        }
        throw new IllegalArgumentException("no figure " + figure + " for " + workers + " workers");
    }

    /** Every worker-scaling figure of one worker count, or of all when {@code workers} is 0. */
    static Metric[] workers(int workers) {
        return java.util.Arrays.stream(values())
                .filter(m -> m.workerFigure != null && (workers == 0 || m.workers == workers))
                .toArray(Metric[]::new);
    }

    /** The provider-bound figure for this scenario, replica count and kind. */
    static Metric provider(ProviderScenario scenario, int replicas, ProviderFigure figure) {
        for (Metric m : values()) {
            if (m.scenario == scenario && m.replicas == replicas && m.figure == figure) {
                return m;
            }
        }
        throw new IllegalArgumentException("no figure " + figure + " for " + scenario + " x " + replicas);
    }

    /** Every provider-bound figure of one scenario and replica count. */
    static Metric[] provider(ProviderScenario scenario, int replicas) {
        return java.util.Arrays.stream(values()).filter(m -> m.scenario == scenario && m.replicas == replicas)
                .toArray(Metric[]::new);
    }

    /** Every provider-bound figure. */
    static Metric[] provider() {
        return java.util.Arrays.stream(values()).filter(m -> m.scenario != null).toArray(Metric[]::new);
    }

    /** The token-bound figure for this scenario, replica count and kind. */
    static Metric tokens(TokenScenario scenario, int replicas, TokenFigure figure) {
        for (Metric m : values()) {
            if (m.tokens == scenario && m.replicas == replicas && m.tokenFigure == figure) {
                return m;
            }
        }
        throw new IllegalArgumentException("no figure " + figure + " for " + scenario + " x " + replicas);
    }

    /** Every token-bound figure of one scenario and replica count, or of all when {@code scenario} is null. */
    static Metric[] tokens(TokenScenario scenario, int replicas) {
        return java.util.Arrays.stream(values())
                .filter(m -> m.tokens != null && (scenario == null || (m.tokens == scenario && m.replicas == replicas)))
                .toArray(Metric[]::new);
    }

    /** Every fair-share figure. */
    static Metric[] fairShares() {
        return java.util.Arrays.stream(values()).filter(m -> m.key.startsWith("fair_share_"))
                .toArray(Metric[]::new);
    }

    /** Every batch-lane figure. */
    static Metric[] batchLane() {
        return java.util.Arrays.stream(values()).filter(m -> m.key.startsWith("batch_lane_"))
                .toArray(Metric[]::new);
    }

    /**
     * A stated target: a bound the value must reach ({@code AT_LEAST}) or stay within ({@code AT_MOST}), a range
     * from {@code bound} to {@code upper} it must fall in ({@code WITHIN}; {@code upper} is used by no other kind),
     * or only a remark on how to read the figure ({@code CONTEXT}, no verdict).
     */
    record Target(Kind kind, double bound, double upper, String remark) {

        enum Kind { AT_LEAST, AT_MOST, WITHIN, CONTEXT }

        static Target atLeast(double bound, String remark) {
            return new Target(Kind.AT_LEAST, bound, 0, remark);
        }

        static Target atMost(double bound, String remark) {
            return new Target(Kind.AT_MOST, bound, 0, remark);
        }

        static Target within(double lower, double upper, String remark) {
            return new Target(Kind.WITHIN, lower, upper, remark);
        }

        static Target context(String remark) {
            return new Target(Kind.CONTEXT, 0, 0, remark);
        }

        /** "MET" or "MISSED", or null for a figure given as context only. */
        String verdict(double value) {
            return switch (kind) {
                case AT_LEAST -> value >= bound ? "MET" : "MISSED";
                case AT_MOST -> value <= bound ? "MET" : "MISSED";
                case WITHIN -> value >= bound && value <= upper ? "MET" : "MISSED";
                case CONTEXT -> null;
            };
        }

        /** "at least 19.0 (95% of ...)", or the remark alone for context. */
        String describe() {
            String limit = switch (kind) {
                case AT_LEAST -> "at least " + number(bound);
                case AT_MOST -> "at most " + number(bound);
                case WITHIN -> "within " + number(bound) + "-" + number(upper);
                case CONTEXT -> "";
            };
            if (remark == null) {
                return limit;
            }
            return limit.isEmpty() ? "(" + remark + ")" : limit + " (" + remark + ")";
        }

        private static String number(double value) {
            return value == Math.rint(value) && Math.abs(value) < 1e6 ? Long.toString((long) value)
                    : ReportTable.format(value);
        }
    }
}
