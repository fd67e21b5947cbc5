#!/usr/bin/env bash
# The Flink image's entrypoint (docker/images/flink): the official image's commands on the
# jars of scripts/flink-dist, configured by the project's flink-conf/config.yaml.
#
#   jobmanager                 a session cluster's JobManager (REST and web UI on 8081)
#   taskmanager                a TaskManager; its resource id is the container's host name
#   flink <CLI arguments>      Flink's command-line client (run, list, stop, cancel, ...)
#   anything else              run as it is (bash, java -jar ...)
#
# The project's config.yaml (baked in at /opt/flinkss/config.yaml) becomes conf/config.yaml with
# what must differ in containers, from these variables:
#   JOB_MANAGER_RPC_ADDRESS   the JobManager's host name (default jobmanager): RPC and REST
#   FLINKSS_S3_ENDPOINT       s3.endpoint (default http://s3proxy:9000)
#   FLINKSS_CHECKPOINT_DIR    default checkpoint dir (default s3://flinkss/cluster/checkpoints)
#   FLINKSS_SAVEPOINT_DIR     default savepoint dir (default s3://flinkss/cluster/savepoints)
#   FLINK_PROPERTIES          extra config.yaml lines, appended last (as in the official image)
#   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY   S3 credentials; default: the s3.access-key and
#                             s3.secret-key of the project's file (the local default)
# Processes bind 0.0.0.0 (other containers must reach them) and log to standard output.
set -euo pipefail

FLINK_HOME="${FLINK_HOME:-/opt/flink}"
CONF_DIR="$FLINK_HOME/conf"
SOURCE_CONF=/opt/flinkss/config.yaml
JM_HOST="${JOB_MANAGER_RPC_ADDRESS:-jobmanager}"

flat_value() {
  sed -n "s/^${1//./\\.}[[:space:]]*:[[:space:]]*\(.*\)$/\1/p" "$2" | tail -n 1 | sed 's/[[:space:]]#.*$//; s/[[:space:]]*$//'
}

write_conf() {
  mkdir -p "$CONF_DIR"
  {
    echo "# Written by /opt/flinkss/entrypoint.sh from the project's flink-conf/config.yaml."
    sed -e '/^taskmanager\.host:/d' \
        -e "s|^jobmanager\.rpc\.address:.*|jobmanager.rpc.address: $JM_HOST|" \
        -e 's|^jobmanager\.bind-host:.*|jobmanager.bind-host: 0.0.0.0|' \
        -e 's|^taskmanager\.bind-host:.*|taskmanager.bind-host: 0.0.0.0|' \
        -e 's|^rest\.bind-address:.*|rest.bind-address: 0.0.0.0|' \
        -e "s|^rest\.address:.*|rest.address: $JM_HOST|" \
        -e 's|^rest\.bind-port:.*|rest.bind-port: 8081|' \
        -e "s|^s3\.endpoint:.*|s3.endpoint: ${FLINKSS_S3_ENDPOINT:-http://s3proxy:9000}|" \
        -e "s|^execution\.checkpointing\.dir:.*|execution.checkpointing.dir: ${FLINKSS_CHECKPOINT_DIR:-s3://flinkss/cluster/checkpoints}|" \
        -e "s|^execution\.checkpointing\.savepoint-dir:.*|execution.checkpointing.savepoint-dir: ${FLINKSS_SAVEPOINT_DIR:-s3://flinkss/cluster/savepoints}|" \
        -e '/^s3\.access-key:/d' -e '/^s3\.secret-key:/d' \
        "$SOURCE_CONF"
    # Each TaskManager announces its own host name (the compose service's), reachable from
    # every other container.
    echo "taskmanager.host: $(hostname)"
    if [[ -n "${FLINK_PROPERTIES:-}" ]]; then
      echo "# FLINK_PROPERTIES"
      echo "$FLINK_PROPERTIES"
    fi
  } >"$CONF_DIR/config.yaml"
  cp /opt/flinkss/log4j-console.properties /opt/flinkss/log4j-cli.properties "$CONF_DIR/"
}

# The keys go to Flink's S3 file system through the environment, not config.yaml: Flink logs
# every configuration value it loads, the access key included.
export_credentials() {
  if [[ -z "${AWS_ACCESS_KEY_ID:-}" || -z "${AWS_SECRET_ACCESS_KEY:-}" ]]; then
    AWS_ACCESS_KEY_ID="$(flat_value s3.access-key "$SOURCE_CONF")"
    AWS_SECRET_ACCESS_KEY="$(flat_value s3.secret-key "$SOURCE_CONF")"
    export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
  fi
}

classpath() {
  find "$FLINK_HOME/lib" -maxdepth 1 -name '*.jar' | LC_ALL=C sort | paste -sd: -
}

java_opts() {
  echo "$(flat_value env.java.opts.all "$CONF_DIR/config.yaml") $(flat_value "env.java.opts.$1" "$CONF_DIR/config.yaml")"
}

# JVM memory flags and the computed memory settings, as Flink's bin/ scripts get them.
resource_params() {
  local output prefix="BASH_JAVA_UTILS_EXEC_RESULT:"
  output="$(java -Dlog4j.configurationFile="file:$CONF_DIR/log4j-console.properties" -classpath "$(classpath)" \
    org.apache.flink.runtime.util.bash.BashJavaUtils "$1" --configDir "$CONF_DIR" 2>&1)" \
    || { echo "$output" >&2; echo "error: BashJavaUtils $1 failed (output above)" >&2; exit 1; }
  JVM_PARAMS="$(grep "^$prefix" <<<"$output" | sed -n 1p)"
  JVM_PARAMS="${JVM_PARAMS#"$prefix"}"
  DYNAMIC_PARAMS="$(grep "^$prefix" <<<"$output" | sed -n 2p)"
  DYNAMIC_PARAMS="${DYNAMIC_PARAMS#"$prefix"}"
}

export FLINK_CONF_DIR="$CONF_DIR" FLINK_LIB_DIR="$FLINK_HOME/lib" FLINK_PLUGINS_DIR="$FLINK_HOME/plugins" \
  FLINK_LOG_DIR="$FLINK_HOME/log" FLINK_OPT_DIR="$FLINK_HOME/opt" FLINK_BIN_DIR="$FLINK_HOME/bin"

command="${1:-help}"
case "$command" in
  jobmanager|taskmanager)
    shift
    write_conf
    export_credentials
    if [[ "$command" == jobmanager ]]; then
      main_class=org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint
      resource_params GET_JM_RESOURCE_PARAMS
      extra=()
    else
      main_class=org.apache.flink.runtime.taskexecutor.TaskManagerRunner
      resource_params GET_TM_RESOURCE_PARAMS
      extra=(-D "taskmanager.resource-id=$(hostname)")
    fi
    # shellcheck disable=SC2046,SC2086  # lists of JVM flags and -D settings
    exec java $JVM_PARAMS $(java_opts "$command") \
      -Dlog4j.configurationFile="file:$CONF_DIR/log4j-console.properties" \
      -classpath "$(classpath)" "$main_class" --configDir "$CONF_DIR" $DYNAMIC_PARAMS "${extra[@]}" "$@"
    ;;
  flink)
    shift
    write_conf
    export_credentials
    # shellcheck disable=SC2046
    exec java $(java_opts client) -Dlog4j.configurationFile="file:$CONF_DIR/log4j-cli.properties" \
      -classpath "$(classpath)" org.apache.flink.client.cli.CliFrontend "$@"
    ;;
  help|-h|--help)
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)
    write_conf
    export_credentials
    exec "$@"
    ;;
esac
