-- The course's events from one Kafka topic to another as they arrive: run it with
-- --trigger real-time (docs/real-time.md); the topic holds the course's events as JSON
-- (land-events --to-kafka --topic events).
--
--   flinkss sql --file examples/sql/real-time-kafka.sql --trigger real-time
--
-- Each record reaches events_out within milliseconds of its arrival; the sink writes it in a
-- Kafka transaction that the next checkpoint (every 5 s unless real-time=<interval> says)
-- commits, so a read_committed reader sees every event once, across kills and reruns.

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

-- Flink's Kafka table sink, exactly once by default here (Kafka transactions committed with the
-- query's checkpoints); 'sink.delivery-guarantee' = 'at-least-once' shows records to every reader
-- at once, and may write some twice after a failure.
CREATE TEMPORARY TABLE events_out (
  event_id     BIGINT,
  user_id      INT,
  event_type   STRING,
  event_ts     TIMESTAMP_LTZ(3),
  amount       DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'events_out',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json'
);

INSERT INTO events_out SELECT * FROM events;
