#!/usr/bin/env bash
# rclone serving a folder over WebDAV on 127.0.0.1:8088 for the files family's tests: user alice, password secret,
# each test making its own sub-folder of the share. Idempotent.
set -euo pipefail
PORT=8088
DIR=/var/tmp/assistant-webdav
up() { (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; }
if up; then exit 0; fi
mkdir -p "$DIR/root"
# An empty config of its own, so that rclone neither reads nor writes the user's ~/.config/rclone.
touch "$DIR/rclone.conf"
nohup rclone serve webdav "$DIR/root" --config "$DIR/rclone.conf" \
  --addr "127.0.0.1:$PORT" --user alice --pass secret >"$DIR/rclone.log" 2>&1 &
for _ in $(seq 1 50); do up && exit 0; sleep 0.2; done
echo "webdav: rclone did not start on 127.0.0.1:$PORT (see $DIR/rclone.log)" >&2
exit 1
