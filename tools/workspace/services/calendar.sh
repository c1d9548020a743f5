#!/usr/bin/env bash
# Radicale (CalDAV) on 127.0.0.1:5232 for the calendar family's tests: user alice, password secret, each test
# making its own calendar. Idempotent.
set -euo pipefail
PORT=5232
DIR=/var/tmp/assistant-radicale
up() { (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; }
# Every run starts with no calendars: each test makes its own, and a CalDAV client lists them all when it connects
# (one request each), so hundreds left by earlier runs slow every connection down until they fail.
rm -rf "$DIR/collections/collection-root"
if up; then exit 0; fi
mkdir -p "$DIR/collections"
printf 'alice:secret\n' >"$DIR/users"
nohup radicale \
  --server-hosts "127.0.0.1:$PORT" \
  --auth-type htpasswd --auth-htpasswd-filename "$DIR/users" --auth-htpasswd-encryption plain \
  --rights-type owner_only \
  --storage-filesystem-folder "$DIR/collections" >"$DIR/radicale.log" 2>&1 &
for _ in $(seq 1 50); do up && exit 0; sleep 0.2; done
echo "calendar: radicale did not start on 127.0.0.1:$PORT (see $DIR/radicale.log)" >&2
exit 1
