#!/usr/bin/env bash
# Runs one conflict's statements through pgbench in each given database in turn, one client, for SECONDS each,
# and prints the latency and the server's CPU per transaction. Each database name is also the script's:
# "current" runs current.sql, "lease" runs lease.sql. See README.md for the set-up.
#   PGDATA=... PGPORT=... ./run.sh 15 current lease current lease
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="$1"; shift

# CPU milliseconds of every server process so far, exited backends included (the postmaster's children's time).
# After "pid (comm) ", a stat line's fields from 12 on are utime, stime, cutime and cstime, in clock ticks.
server_cpu_ms() {
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$(head -1 "$PGDATA/postmaster.pid")" -v hz="$(getconf CLK_TCK)" '
        /\(postgres\)/ {
            pid = $1; rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
            total += f[12] + f[13]
            if (pid == pm) total += f[14] + f[15]
        }
        END { printf "%.1f", total * 1000 / hz }'
}

for db in "$@"; do
    psql -q -d "$db" -f "$here/reset.sql" > /dev/null
    if [ "$db" = lease ]; then psql -q -d "$db" -c 'TRUNCATE synthesis_leases'; fi
    psql -q -d "$db" -c 'VACUUM FULL policy_conflicts' -c 'VACUUM ANALYZE' -c 'CHECKPOINT'
    before="$(server_cpu_ms)"
    out="$(PGOPTIONS='-c synchronous_commit=off' pgbench -n -M prepared -c 1 -T "$seconds" -f "$here/$db.sql" "$db")"
    after="$(server_cpu_ms)"
    tx="$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<< "$out")"
    latency="$(sed -n 's/^latency average = \(.*\)$/\1/p' <<< "$out")"
    echo "$db: $tx transactions, latency $latency, server CPU $(awk -v a="$after" -v b="$before" -v n="$tx" \
        'BEGIN { printf "%.3f", (a - b) / n }') ms per transaction"
done
