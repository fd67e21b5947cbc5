#!/usr/bin/env bash
# The Kafka image's entrypoint (docker/images/kafka). With no arguments: write
# /opt/kafka/config/server.properties from the environment the way the official apache/kafka
# image reads it (KAFKA_FOO_BAR=v -> foo.bar=v; '___' -> '-', '__' -> '_'), format the log dirs
# with CLUSTER_ID on the first start, and run the broker. With arguments: a Kafka tool class and
# its arguments, e.g. `org.apache.kafka.tools.TopicCommand --bootstrap-server kafka:19092 --list`.
set -euo pipefail

classpath() {
  find /opt/kafka/libs -maxdepth 1 -name '*.jar' | LC_ALL=C sort | paste -sd: -
}
LOG4J="-Dlog4j2.configurationFile=file:/opt/kafka/log4j2.properties"

if [[ $# -gt 0 ]]; then
  # shellcheck disable=SC2086
  exec java -Xmx256m -Dlog4j2.configurationFile=file:/opt/kafka/tools-log4j2.properties -classpath "$(classpath)" "$@"
fi

props=/opt/kafka/config/server.properties
{
  echo "# Written by /opt/kafka/entrypoint.sh from the KAFKA_* variables."
  while IFS='=' read -r name value; do
    case "$name" in
      KAFKA_HEAP_OPTS|KAFKA_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_LOG4J_OPTS) continue ;;
      KAFKA_*)
        key="${name#KAFKA_}"
        key="${key,,}"
        key="${key//___/-}"
        key="${key//__/@}"
        key="${key//_/.}"
        key="${key//@/_}"
        echo "$key=$value" ;;
    esac
  done < <(env)
} >"$props"

log_dirs="$(sed -n 's/^log\.dirs=//p' "$props")"
if [[ -z "$log_dirs" ]]; then
  echo "log.dirs=/var/lib/kafka/data" >>"$props"
  log_dirs=/var/lib/kafka/data
fi
: "${CLUSTER_ID:?set CLUSTER_ID (16 bytes, url-safe base64 without padding) to format the log dirs}"
if [[ ! -f "${log_dirs%%,*}/meta.properties" ]]; then
  java -Xmx256m $LOG4J -classpath "$(classpath)" kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$props" --ignore-formatted
fi
# shellcheck disable=SC2086
exec java ${KAFKA_HEAP_OPTS:--Xmx512m -Xms512m} -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
  -XX:InitiatingHeapOccupancyPercent=35 -Djava.awt.headless=true ${KAFKA_OPTS:-} $LOG4J \
  -classpath "$(classpath)" kafka.Kafka "$props"
