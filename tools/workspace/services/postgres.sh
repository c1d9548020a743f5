#!/usr/bin/env bash
# PostgreSQL for the suites that run on PostgreSQL (every storage test, the hosted API): the server of
# $ASSISTANT_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test). A local cluster that is down is
# started with pg_ctlcluster; a remote one must already run. Idempotent.
set -euo pipefail
URL="${ASSISTANT_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
HOSTPORT="${URL#*://}"; HOSTPORT="${HOSTPORT#*@}"; HOSTPORT="${HOSTPORT%%/*}"
HOST="${HOSTPORT%%:*}"; PORT="${HOSTPORT##*:}"; [[ "$PORT" == "$HOSTPORT" ]] && PORT=5432
up() { pg_isready -h "$HOST" -p "$PORT" -q 2>/dev/null; }
if up; then exit 0; fi
case "$HOST" in
  127.0.0.1 | localhost | ::1) ;;
  *) echo "postgres: nothing answers at $HOST:$PORT (ASSISTANT_TEST_DATABASE_URL); start it there" >&2; exit 1 ;;
esac
cluster="$(ls /etc/postgresql 2>/dev/null | head -n 1)"
if [[ -z "$cluster" ]]; then
  echo "postgres: no local cluster in /etc/postgresql to start on port $PORT" >&2
  exit 1
fi
pg_ctlcluster --skip-systemctl-redirect "$cluster" main start
for _ in $(seq 1 30); do up && exit 0; sleep 1; done
echo "postgres: the cluster $cluster/main did not answer on $HOST:$PORT" >&2
exit 1
