#!/usr/bin/env bash
# Mosquitto on 127.0.0.1:1883 for the home family's tests (MQTT discovery, Zigbee2MQTT). Idempotent.
set -euo pipefail
if (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then exit 0; fi
mosquitto -d -c /etc/mosquitto/mosquitto.conf
for _ in $(seq 1 30); do (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null && exit 0; sleep 0.2; done
echo "mqtt: mosquitto did not start on 127.0.0.1:1883" >&2
exit 1
