-- The course's events from a Kafka topic to the Delta table events_rt as they arrive: run it with
-- --trigger real-time (docs/real-time.md); the topic holds the course's events as JSON
-- (land-events --to-kafka --topic events).
--
--   flinkss sql --file examples/sql/real-time-delta.sql --trigger real-time
--
-- Each record is written to a Parquet file of the table as it arrives; the files are committed
-- at each checkpoint (every 5 s unless real-time=<interval> says), one Delta version with the
-- query's txn, so a reader of the table sees every event once, across kills and reruns.

CREATE TEMPORARY TABLE events (
  event_id     BIGINT,
  user_id      INT,
  event_type   STRING,
  event_ts     TIMESTAMP_LTZ(3),
  amount       DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'events',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TEMPORARY TABLE events_rt (
  event_id     BIGINT,
  user_id      INT,
  event_type   STRING,
  event_ts     TIMESTAMP_LTZ(3),
  amount       DOUBLE
) WITH (
  'connector' = 'delta',
  'table' = 'events_rt'
);

INSERT INTO events_rt SELECT * FROM events;
