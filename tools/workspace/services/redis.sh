#!/usr/bin/env bash
# Redis on 127.0.0.1:6379 for the hosted API's suites. They use the database of $ASSISTANT_TEST_REDIS_URL
# (default redis://127.0.0.1:6379/15), never database 0, each deployment under a key prefix of its own.
# Nothing is kept on disk. Idempotent.
set -euo pipefail
PORT=6379
DIR=/var/tmp/assistant-redis
up() { (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; }
if up; then exit 0; fi
mkdir -p "$DIR"
redis-server --daemonize yes --bind 127.0.0.1 --port "$PORT" --save "" --appendonly no \
  --dir "$DIR" --logfile "$DIR/redis.log"
for _ in $(seq 1 50); do up && exit 0; sleep 0.2; done
echo "redis: redis-server did not start on 127.0.0.1:$PORT (see $DIR/redis.log)" >&2
exit 1
